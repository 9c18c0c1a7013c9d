"""The money service: every movement is ledger rows, and balances move in the same transaction.

Accounts hold money in one place each: a user's balance, the house (rake), a hand's pot in
play, a player's stack at a table. A movement writes one row per account it touches (they
share a `movement` id and sum to zero) and changes those balances with a guarded
`UPDATE … SET balance = balance + x WHERE balance + x >= 0`, so no account ever goes below
zero, even with the admin CLI writing from another process. The only rows that do not sum
to zero are grants: money entering (or leaving) the system by an admin (C-0.1).

A table posts every applied action, and under eventlet each statement holds the whole
process: so a write takes one UPDATE and one INSERT however many rows it makes, and a table
may keep the accounts of a hand's parties from one action to the next (`post(parties=…)`).

Everything here works inside a caller's session (`with get_db().session() as s:`), so the
runtime can commit an applied action and its payments together (C-0.3). What a table runs at
every action and every «Готов» (`post`, `balances`, `stacks_elsewhere`, `open_pot`) also
takes a bare connection (`Db`, `get_db().core()`): Core statements only, and there the ones
run at every action and «Готов» go straight to the driver's cursor (`_run`).

Why one module of ~600 lines: every way money moves (grants, antes and bets, stacks,
refunds, practice chips) and the audit that checks them (`verify`) stay side by side, so
that one reading shows that money is never created or lost.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Select,
    Update,
    and_,
    bindparam,
    case,
    func,
    insert,
    update,
)
from sqlalchemy import select as sql_select
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col, select

from app.engine.hand import Transfer
from app.models import (
    HOUSE,
    PLAYING,
    POT,
    STACK,
    USER,
    Account,
    HandRecord,
    LedgerEntry,
    Table,
    User,
    utcnow,
)
from app.models.db import Statement, run
from app.table_rules import table_variant

#: Where the table's statements run: a session, or a bare connection (`Database.core`).
Db = Session | Connection

GRANT = "grant"
REFUND = "refund"
BUY_IN = "buy_in"
CASH_OUT = "cash_out"
PRACTICE = "practice chips"  # the reason of the grants that make and take practice stacks
BOT_STAKE = "bot_stake"  # the house stakes a bot at a money table (app/bots/seats.py)
BOT_RETURN = "bot_return"  # a bot that left gives what it holds back to the house
# The largest amount a grant moves and a grant may leave on a balance: far above any
# friends' game, far below SQLite's 2⁶³, so a sum over millions of accounts stays a whole
# number (docs/hosting.md, «Administration»).
MAX_AMOUNT = 10**12

# The tables themselves: the hot path writes with plain SQL, not through ORM objects.
# Not typed (next line): SQLModel sets `__table__` on a table model at runtime.
ACCOUNTS, LEDGER = Account.__table__, LedgerEntry.__table__  # type: ignore[attr-defined]
# Not typed (next line): SQLModel sets `__table__` on a table model at runtime.
USERS = User.__table__  # type: ignore[attr-defined]
INSERT_ROWS = insert(LEDGER)
OPEN_ACCOUNT = insert(ACCOUNTS)


class LedgerError(Exception):
    """A movement that would break the books (unknown party, overdraft, zero grant)."""


# --- accounts ---------------------------------------------------------------------------
def _is(column: Any, value: int | None) -> ColumnElement[bool]:
    """`column` holds `value`, None included (SQL's `= NULL` never holds)."""
    return column.is_(None) if value is None else column == value


def _account_id(s: Db, kind: str, **keys: int | None) -> int:
    """The id of the account of `kind` with exactly these keys, opened (balance 0) on first
    use. Ids found or opened inside a transaction are only good once it commits (SQLite
    hands a rolled-back id out again): a caller that keeps them must wait for the commit."""
    found = s.execute(
        select(Account.id).where(
            Account.kind == kind,
            *(_is(getattr(Account, c), keys.get(c)) for c in ("user_id", "table_id", "hand_id")),
        )
    ).scalar()
    return _open(s, kind, **keys) if found is None else found


def _open(s: Db, kind: str, **keys: int | None) -> int:
    """A new account holding 0 (C-0.1)."""
    opened = s.execute(OPEN_ACCOUNT, {"kind": kind, "balance": 0, "created": utcnow(), **keys})
    return opened.inserted_primary_key[0]  # type: ignore[attr-defined]  # an INSERT's CursorResult


def open_pot(s: Db, hand_id: int) -> int:
    """The pot account of a hand just inserted, opened without looking for it first: hands
    are never deleted, so no account can carry a new hand's id. `post` takes it in
    `parties`."""
    return _open(s, POT, hand_id=hand_id)


def _account(s: Session, kind: str, **keys: int | None) -> Account:
    """The account of `kind` with exactly these keys, as an object of the session."""
    account = s.get(Account, _account_id(s, kind, **keys))
    assert account is not None
    return account


def user_account(s: Session, user_id: int) -> Account:
    """A user's balance; a new one holds 0 (C-0.1)."""
    return _account(s, USER, user_id=user_id)


def house_account(s: Session) -> Account:
    """Where the rake goes (S-8.1)."""
    return _account(s, HOUSE)


def pot_account(s: Session, hand_id: int) -> Account:
    """The money in play in one hand: out of the balances, recorded against the hand."""
    return _account(s, POT, hand_id=hand_id)


def stack_account(s: Session, user_id: int, table_id: int) -> Account:
    """A player's chips at a table in the stack variants (S-1.5)."""
    return _account(s, STACK, user_id=user_id, table_id=table_id)


def balance(s: Session, account: Account) -> int:
    """The balance as stored now (not a possibly stale attribute)."""
    return s.exec(select(Account.balance).where(Account.id == account.id)).one()


def user_balance(s: Session, user_id: int) -> int:
    return balance(s, user_account(s, user_id))


# --- movements --------------------------------------------------------------------------
@dataclass(frozen=True)
class Leg:
    """One side of a movement: `amount` into (positive) or out of (negative) `account`."""

    account: Account
    amount: int


def move(
    s: Session,
    legs: Iterable[Leg],
    kind: str,
    *,
    hand_id: int | None = None,
    table_id: int | None = None,
    reason: str = "",
    grant: bool = False,
    actor: str = "",
) -> list[LedgerEntry]:
    """Write one movement: a row per leg and the matching balance changes, or nothing.

    Legs must sum to zero unless `grant`. Raises LedgerError if an account would go below
    zero; the caller's session is then rolled back by `Database.session`. `actor`: who moved
    the money by hand (an administrator's grant), kept in every row.
    """
    legs = [leg for leg in legs if leg.amount != 0]
    if not legs:
        raise LedgerError(f"{kind}: nothing to move")
    if not grant and sum(leg.amount for leg in legs) != 0:
        raise LedgerError(f"{kind}: the legs of a movement must sum to zero")
    rows = _movement(
        [(leg.account.id, leg.amount) for leg in legs], kind, hand_id, table_id, reason, actor
    )
    _write(s, rows)
    return list(  # read back: the rows were inserted without ORM objects
        s.exec(
            select(LedgerEntry)
            .where(LedgerEntry.movement == rows[0]["movement"])
            .order_by(col(LedgerEntry.id))
        )
    )


Entry = dict[str, Any]  # the columns of one ledger row, for one INSERT of many


def _movement(
    legs: Sequence[tuple[int | None, int]],
    kind: str,
    hand_id: int | None,
    table_id: int | None,
    reason: str,
    actor: str = "",
) -> list[Entry]:
    """The rows of one movement: `(account id, amount)` legs sharing a movement id."""
    movement, now = uuid.uuid4().hex, utcnow()
    return [
        {"account_id": account_id, "amount": amount, "kind": kind, "movement": movement,
         "hand_id": hand_id, "table_id": table_id, "reason": reason, "created": now,
         "actor": actor}
        for account_id, amount in legs
    ]  # fmt: skip


def _write(s: Db, entries: Sequence[Entry]) -> None:
    """Insert `entries` and move their accounts' balances: two statements however many rows.

    Each account changes by the sum of its rows, guarded by `balance + x >= 0`, so what the
    transaction commits is never below zero (an account short of money is left unchanged and
    LedgerError raised, for `Database.session` to roll the transaction back).
    """
    net: dict[int, int] = defaultdict(int)
    for entry in entries:
        net[entry["account_id"]] += entry["amount"]
    net = {account_id: amount for account_id, amount in net.items() if amount}
    if net:
        shifts = {}
        for i, (account_id, amount) in enumerate(net.items()):
            shifts[f"a{i}"], shifts[f"x{i}"] = account_id, amount
        moved = {account_id for (account_id,) in _run(s, _shift(len(net)), shifts)}
        short = set(net) - moved
        if short:
            kinds = sorted({e["kind"] for e in entries if e["account_id"] in short})
            raise LedgerError(
                f"{', '.join(kinds)}: account {', '.join(map(str, sorted(short)))} "
                f"cannot pay {', '.join(str(-net[a]) for a in sorted(short))}"
            )
        if isinstance(s, Session):  # an account object it holds is stale now
            for account_id in net:
                held = s.identity_map.get(identity_key(Account, account_id))
                if held is not None:
                    s.expire(held, ["balance"])
    if entries:
        _run(s, INSERT_ROWS, list(entries))


def _run(s: Db, statement: Statement, params: Any) -> Sequence[Any]:
    """A statement a table runs at every action or «Готов»: on a bare connection on the
    driver's cursor (`app.models.db.run`: SQLAlchemy's own work around it cost more than
    SQLite's), in a session as any other (its flush first); the rows it returns."""
    if isinstance(s, Connection):
        return run(s, statement, params)
    result = s.execute(statement, params)
    return result.all() if statement.exported_columns else []


@cache
def _shift(accounts: int) -> Update:
    """The guarded UPDATE of `accounts` balances at once, returning the ids it moved: account
    `a<i>` changes by `x<i>` unless that takes it below 0. Built once per count (statements
    built per call cost a table more than running them)."""
    change = case(
        *((ACCOUNTS.c.id == bindparam(f"a{i}"), bindparam(f"x{i}")) for i in range(accounts))
    )
    return (
        update(ACCOUNTS)
        .where(
            ACCOUNTS.c.id.in_([bindparam(f"a{i}") for i in range(accounts)]),
            ACCOUNTS.c.balance + change >= 0,
        )
        .values(balance=ACCOUNTS.c.balance + change)
        .returning(ACCOUNTS.c.id)
    )


def transfer(
    s: Session,
    source: Account,
    target: Account,
    amount: int,
    kind: str,
    *,
    hand_id: int | None = None,
    table_id: int | None = None,
    reason: str = "",
) -> list[LedgerEntry]:
    """Move `amount` > 0 from one account to another."""
    _positive(amount, kind)
    return move(
        s,
        [Leg(source, -amount), Leg(target, amount)],
        kind,
        hand_id=hand_id,
        table_id=table_id,
        reason=reason,
    )


def _positive(amount: int, kind: str) -> None:
    if amount <= 0:
        raise LedgerError(f"{kind}: an amount must be positive, got {amount}")


def grant(s: Session, user: User, amount: int, reason: str, actor: str = "") -> LedgerEntry:
    """An admin (`actor`) adds (or, negative, takes) money; a balance never goes below 0
    (C-0.1) nor above MAX_AMOUNT."""
    assert user.id is not None
    return _grant(s, user_account(s, user.id), amount, reason, user.name, actor)


def grant_house(s: Session, amount: int, reason: str, actor: str = "") -> LedgerEntry:
    """An admin (`actor`) funds (or, negative, takes from) the house: the bots' stakes at
    money tables come from it (docs/rules.md, «Bots»)."""
    return _grant(s, house_account(s), amount, reason, "the house", actor)


def _grant(
    s: Session, account: Account, amount: int, reason: str, who: str, actor: str
) -> LedgerEntry:
    """The one movement that is not zero-sum, bounded by ±MAX_AMOUNT and a balance of at
    most MAX_AMOUNT (docs/hosting.md, «Administration»)."""
    if amount == 0:
        raise LedgerError("a grant must not be zero")
    if not -MAX_AMOUNT <= amount <= MAX_AMOUNT:
        raise LedgerError(f"a grant is at most {MAX_AMOUNT} either way, got {amount}")
    have = balance(s, account)
    if have + amount > MAX_AMOUNT:
        raise LedgerError(f"a balance holds at most {MAX_AMOUNT}: {who} has {have}")
    (row,) = move(s, [Leg(account, amount)], GRANT, reason=reason, grant=True, actor=actor)
    return row


def stake_bot(s: Session, bot_id: int, amount: int) -> None:
    """The house gives a bot `amount` to play from: money moves, none is made (LedgerError
    when the house has less)."""
    try:
        transfer(s, house_account(s), user_account(s, bot_id), amount, BOT_STAKE)
    except LedgerError:
        raise LedgerError(
            f"the house has {balance(s, house_account(s))}, not the {amount} a bot needs "
            "(svara admin house grant)"
        ) from None


def return_bot(s: Session, bot_id: int) -> int:
    """Whatever a bot's balance holds goes back to the house (its stakes and what it won);
    returns the amount."""
    account = user_account(s, bot_id)
    amount = balance(s, account)
    if amount > 0:
        transfer(s, account, house_account(s), amount, BOT_RETURN)
    return amount


def post(
    s: Db,
    transfers: Iterable[Transfer],
    *,
    hand_id: int,
    table_id: int,
    stacks: bool = False,
    reason: str = "",
    parties: dict[str, int] | None = None,
) -> None:
    """Record the engine's `Transfer`s of one hand (app/engine/hand.py), one movement each,
    in one UPDATE of the balances and one INSERT of the rows (a table posts every action).

    Player names are users; "pot" is this hand's pot, "house" the house. A player pays from
    and is paid to his balance (classic, C-0.2) or, with `stacks`, his stack at the table.
    `parties` (name → account id) saves looking the accounts up again: the ones missing are
    found (or opened) and added, so a caller may keep them for the hand's next posts once
    this transaction has committed (`_account_id`).
    """
    transfers = list(transfers)
    for t in transfers:
        _positive(t.amount, t.kind)
    parties = {} if parties is None else parties
    missing = {n for t in transfers for n in (t.source, t.target)} - parties.keys()
    if POT in missing:
        parties[POT] = _account_id(s, POT, hand_id=hand_id)
    if HOUSE in missing:
        parties[HOUSE] = _account_id(s, HOUSE)
    players = missing - {POT, HOUSE}
    if players:
        kind, at = _plays_from(stacks), table_id if stacks else None
        for name, (user_id, account_id, _) in _players(s, players, table_id, stacks).items():
            parties[name] = account_id or _open(s, kind, user_id=user_id, table_id=at)
    entries: list[Entry] = []
    for t in transfers:
        legs = [(parties[t.source], -t.amount), (parties[t.target], t.amount)]
        entries += _movement(legs, t.kind, hand_id, table_id, reason)
    _write(s, entries)


def balances(s: Db, names: Iterable[str], table_id: int, stacks: bool) -> dict[str, int]:
    """What each named player plays from (C-0.2, S-1.5), read in one SELECT; an account not
    opened yet holds 0."""
    return {
        name: amount or 0 for name, (_, _, amount) in _players(s, names, table_id, stacks).items()
    }


def _plays_from(stacks: bool) -> str:
    """The kind of account a player pays from: his balance (C-0.2) or, with `stacks`, his
    stack at the table (S-1.5), the one kind kept per table."""
    return STACK if stacks else USER


def _players(
    s: Db, names: Iterable[str], table_id: int, stacks: bool
) -> dict[str, tuple[int, int | None, int | None]]:
    """Name → (user id, account id, balance) of the account each named user plays from, in
    one SELECT; account and balance are None where it is not opened yet. Raises LedgerError
    for a name that is no user."""
    names = set(names)
    if not names:
        return {}
    bound: dict[str, Any] = {f"n{i}": name for i, name in enumerate(names)}
    if stacks:
        bound["table"] = table_id
    found = {
        name: (user_id, account_id, amount)
        for name, user_id, account_id, amount in _run(s, _players_query(stacks, len(names)), bound)
    }
    unknown = sorted(names - found.keys())
    if unknown:
        raise LedgerError(f"no user named {unknown[0]!r}")
    return found


@lru_cache(maxsize=64)
def _players_query(stacks: bool, count: int) -> Select:
    """`_players`' SELECT, built once for the balances and once for the stacks (at the
    bound `table`), per count of names (`n0`, `n1`, …: a table's players, so a few counts);
    on the tables, as a table reads it at every «Готов» (no ORM objects come out of it)."""
    account = and_(
        ACCOUNTS.c.user_id == USERS.c.id,
        ACCOUNTS.c.kind == _plays_from(stacks),
        ACCOUNTS.c.table_id == bindparam("table") if stacks else ACCOUNTS.c.table_id.is_(None),
        ACCOUNTS.c.hand_id.is_(None),
    )
    return (
        sql_select(USERS.c.name, USERS.c.id, ACCOUNTS.c.id, ACCOUNTS.c.balance)
        .select_from(USERS.outerjoin(ACCOUNTS, account))
        .where(USERS.c.name.in_([bindparam(f"n{i}") for i in range(count)]))
    )


def practice_table(s: Session, table_id: int) -> bool:
    """B-1.4: a practice table plays with its own chips, never with the balance."""
    table = s.get(Table, table_id)
    return table is not None and bool(table_variant(s, table).rules.get("practice"))


def stacks_elsewhere(s: Db, user_ids: Iterable[int], table_id: int) -> dict[int, int]:
    """User id → another table where a stack of his holds money (S-1.5), in one indexed
    SELECT; practice stacks are chips, no money (B-1.4). An account plays for money at one
    table at a time (docs/rules.md, «Money at one table at a time»)."""
    users = set(user_ids)
    if not users:
        return {}
    bound: dict[str, Any] = {f"u{i}": user for i, user in enumerate(users)}
    bound["table"] = table_id
    found = _run(s, _stacks_elsewhere_query(len(users)), bound)
    return money_tables(s, dict(found)) if found else {}


@lru_cache(maxsize=64)
def _stacks_elsewhere_query(count: int) -> Select:
    """`stacks_elsewhere`' SELECT, built once per count of the bound users (`u0`, `u1`, …)
    and the bound `table`: a table asks it at every «Готов». It reads the asked users'
    stacks only, by `ix_accounts_kind_user_id_table_id` (app/models/accounts.py); by `kind`
    alone it read every stack the club ever opened."""
    return sql_select(ACCOUNTS.c.user_id, ACCOUNTS.c.table_id).where(
        ACCOUNTS.c.user_id.in_([bindparam(f"u{i}") for i in range(count)]),
        ACCOUNTS.c.kind == STACK,
        ACCOUNTS.c.balance > 0,
        ACCOUNTS.c.table_id != bindparam("table"),
    )


def money_tables(s: Db, found: dict[int, int]) -> dict[int, int]:
    """`found` (user id → table id) without the practice tables (B-1.4: chips)."""
    if isinstance(s, Connection):  # a table's rules are read as objects: a session joins
        with Session(bind=s) as joined:  # the connection's transaction (it ends there)
            return money_tables(joined, found)
    practice = {t: practice_table(s, t) for t in set(found.values())}
    return {user: table for user, table in found.items() if not practice[table]}


def buy_in(s: Session, user_id: int, table_id: int, amount: int) -> list[LedgerEntry]:
    """Move money from a balance to a stack at a table (S-1.5); at a practice table the
    chips are granted to the stack and the balance is not touched (B-1.4).

    Money at one table at a time (docs/rules.md): this transaction decides it. Its first
    statement writes his user row (to itself), which holds that row — on SQLite, the
    database — until it commits; only then does it look for a stack of his at another
    money table. Two buy-ins of one account at two tables at once (two devices, two tables'
    threads, two processes) cannot both see none: the second is refused (LedgerError)."""
    hold = update(USERS).where(USERS.c.id == user_id)
    s.execute(hold.values(session_epoch=USERS.c.session_epoch))
    source, target = user_account(s, user_id), stack_account(s, user_id, table_id)
    if practice_table(s, table_id):
        return move(s, [Leg(target, amount)], GRANT, table_id=table_id, reason=PRACTICE, grant=True)
    other = stacks_elsewhere(s, [user_id], table_id).get(user_id)
    if other is not None:
        raise LedgerError(f"your money is in play at table {other}: finish there first")
    return transfer(s, source, target, amount, BUY_IN, table_id=table_id)


def cash_out(s: Session, user_id: int, table_id: int) -> list[LedgerEntry]:
    """Return a whole stack to the balance (standing up, a closed table, recovery); practice
    chips are taken back instead (B-1.4)."""
    stack = stack_account(s, user_id, table_id)
    amount = balance(s, stack)
    if amount == 0:
        return []
    if practice_table(s, table_id):
        return move(s, [Leg(stack, -amount)], GRANT, table_id=table_id, reason=PRACTICE, grant=True)
    return transfer(s, stack, user_account(s, user_id), amount, CASH_OUT, table_id=table_id)


def refund(s: Session, hand_id: int, reason: str) -> list[LedgerEntry]:
    """Give every payment into a hand's pot back to where it came from (C-8.5).

    What each account paid in, less what it was already paid out of this pot, goes back to
    it; the pot ends empty. Raises LedgerError if the pot cannot cover that (it never can
    not, unless money left the pot before the hand ended).
    """
    pot = pot_account(s, hand_id)
    movements = select(LedgerEntry.movement).where(LedgerEntry.account_id == pot.id)
    net: dict[int, int] = defaultdict(int)
    for account_id, amount in s.exec(
        select(LedgerEntry.account_id, LedgerEntry.amount).where(
            col(LedgerEntry.movement).in_(movements),
            LedgerEntry.account_id != pot.id,
        )
    ):
        net[account_id] -= amount
    owed = {account_id: amount for account_id, amount in net.items() if amount > 0}
    if sum(owed.values()) != balance(s, pot):
        raise LedgerError(f"hand {hand_id}: the pot does not cover the refunds {owed}")
    table_id = s.exec(select(HandRecord.table_id).where(HandRecord.id == hand_id)).first()
    rows: list[LedgerEntry] = []
    for account_id, amount in sorted(owed.items()):
        owner = s.get(Account, account_id)
        assert owner is not None
        rows += transfer(
            s, pot, owner, amount, REFUND, hand_id=hand_id, table_id=table_id, reason=reason
        )
    return rows


# --- the check --------------------------------------------------------------------------
@dataclass
class Books:
    """What `verify` found. `ok` when every check passed; `problems` says what did not."""

    granted: int = 0
    balances: int = 0  # users and the house
    in_play: int = 0  # pots of unfinished hands and stacks at tables
    house: int = 0  # the house's own balance: rake, and what it keeps for the bots
    bots: int = 0  # what the bots hold (balances and stacks): the house's money, staked
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _one_snapshot(s: Session) -> None:
    """On SQLite each read outside a transaction sees its own moment (the driver opens one
    only before a write), so the rows and the balances, read one after the other while a
    server moves money, could disagree about a movement that committed in between. The
    books are read in one read transaction instead: such a movement is in them wholly or
    not at all."""
    connection = s.connection()
    if connection.dialect.name != "sqlite":
        return
    raw = connection.connection.dbapi_connection
    if raw is not None and not raw.in_transaction:
        connection.exec_driver_sql("BEGIN")


def verify(s: Session, bots: Iterable[int] = ()) -> Books:
    """Prove the books balance (C-0.3): every balance is the sum of its rows, every movement
    but a grant sums to zero, no account is negative, finished hands' pots are empty, and
    the money granted is exactly the balances plus the money in play. `bots` (user ids):
    what they hold is shown as the house's money staked on them.

    It reports and never fails on what it reads: the rows are summed here in Python, whose
    integers do not overflow, so a row written around the service (a huge or fractional
    amount, text) is a problem in the report, not a crash of the SQL sum."""
    books = Books()
    _one_snapshot(s)
    sums: dict[int, int] = defaultdict(int)
    movements: dict[tuple[str, str], int] = defaultdict(int)
    rows = sql_select(
        LEDGER.c.id, LEDGER.c.account_id, LEDGER.c.movement, LEDGER.c.kind, LEDGER.c.amount
    )
    for row_id, account_id, movement, kind, amount in s.execute(rows.order_by(LEDGER.c.id)):
        if not _whole(amount):
            books.problems.append(f"ledger row {row_id}: amount {amount!r} is not an amount")
            continue
        sums[account_id] += amount
        movements[movement, kind] += amount
    hand_status = dict(s.exec(select(HandRecord.id, HandRecord.status)).all())
    closed_tables = set(s.exec(select(Table.id).where(Table.closed)).all())
    accounts = sql_select(
        ACCOUNTS.c.id,
        ACCOUNTS.c.kind,
        ACCOUNTS.c.balance,
        ACCOUNTS.c.hand_id,
        ACCOUNTS.c.table_id,
        ACCOUNTS.c.user_id,
    )
    bot_ids = set(bots)
    bots_held: list[tuple[int | None, int]] = []
    for account_id, kind, held, hand_id, table_id, user_id in s.execute(
        accounts.order_by(ACCOUNTS.c.id)
    ):
        where = f"account {account_id} ({kind})"
        if not _whole(held):
            books.problems.append(f"{where}: balance {held!r} is not an amount")
            continue
        if held != sums.get(account_id, 0):
            books.problems.append(
                f"{where}: balance {held} but its rows sum to {sums.get(account_id, 0)}"
            )
        if held < 0:
            books.problems.append(f"{where}: negative balance {held}")
        if kind == POT and hand_status.get(hand_id) != PLAYING:
            if held:
                books.problems.append(
                    f"{where}: {held} left in the pot of the "
                    f"{hand_status.get(hand_id, 'missing')} hand {hand_id}"
                )
        elif kind == STACK and table_id in closed_tables and held:
            books.problems.append(f"{where}: {held} on the closed table")
        if kind in (USER, HOUSE):
            books.balances += held
        else:
            books.in_play += held
        if kind == HOUSE:
            books.house += held
        elif user_id in bot_ids and kind in (USER, STACK):
            bots_held.append((table_id, held))
    books.bots = _staked(s, bots_held)
    for (movement, kind), total in movements.items():
        if kind == GRANT:
            books.granted += total
        elif total:
            books.problems.append(f"movement {movement} ({kind}) sums to {total}, not 0")
    if books.granted != books.balances + books.in_play:
        books.problems.append(
            f"granted {books.granted} but balances {books.balances} + in play {books.in_play}"
        )
    return books


def house_money(s: Session, bots: Iterable[int]) -> tuple[int, int]:
    """`verify`'s `house` and `bots` without proving the books: the house's balance and what
    the `bots` hold of its money, read from their accounts alone. The administrator's page
    shows them at every view; `verify` walks every ledger row ever written."""
    house = s.execute(
        sql_select(func.coalesce(func.sum(ACCOUNTS.c.balance), 0)).where(ACCOUNTS.c.kind == HOUSE)
    ).scalar_one()
    held = s.execute(
        sql_select(ACCOUNTS.c.table_id, ACCOUNTS.c.balance).where(
            ACCOUNTS.c.user_id.in_(list(bots)), ACCOUNTS.c.kind.in_((USER, STACK))
        )
    )
    return int(house), _staked(s, [(table_id, amount) for table_id, amount in held])


def _staked(s: Session, held: Iterable[tuple[int | None, int]]) -> int:
    """Of what bots hold (a balance: no table; a stack: its table), the house's money: not
    the chips of a practice table (B-1.4)."""
    practice: dict[int, bool] = {}  # table id → a practice table, looked up once
    total = 0
    for table_id, amount in held:
        if table_id is not None and table_id not in practice:
            practice[table_id] = practice_table(s, table_id)
        if table_id is None or not practice[table_id]:
            total += amount
    return total


def _whole(amount: Any) -> bool:
    """A stored amount the books can hold: a whole number within SQLite's 64 bits (bool is
    not one; a REAL is what SQLite makes of an overflowing sum)."""
    return type(amount) is int and -(2**63) <= amount < 2**63
