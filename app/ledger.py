"""The money service: every movement is ledger rows, and balances move in the same transaction.

Accounts hold money in one place each: a user's balance, the house (rake), a hand's pot in
play, a player's stack at a table. A movement writes one row per account it touches (they
share a `movement` id and sum to zero) and changes those balances with a guarded
`UPDATE … SET balance = balance + x WHERE balance + x >= 0`, so no account ever goes below
zero, even with the admin CLI writing from another process. The only rows that do not sum to
zero are grants: money entering (or leaving) the system by an admin (C-0.1).

Everything here works inside a caller's session (`with get_db().session() as s:`), so the
runtime can commit an applied action and its payments together (C-0.3).
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlalchemy import func, update
from sqlmodel import Session, select

from app.engine.hand import HOUSE as ENGINE_HOUSE
from app.engine.hand import POT as ENGINE_POT
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
)
from app.variants import table_variant

GRANT = "grant"
REFUND = "refund"
BUY_IN = "buy_in"
CASH_OUT = "cash_out"
PRACTICE = "practice chips"  # the reason of the grants that make and take practice stacks


class LedgerError(Exception):
    """A movement that would break the books (unknown party, overdraft, zero grant)."""


# --- accounts ---------------------------------------------------------------------------
def _account(s: Session, kind: str, **keys: int | None) -> Account:
    """The account of `kind` with exactly these keys, opened (balance 0) on first use."""
    query = select(Account).where(Account.kind == kind)
    for column in ("user_id", "table_id", "hand_id"):
        query = query.where(
            getattr(Account, column).is_(None)
            if keys.get(column) is None
            else getattr(Account, column) == keys[column]
        )
    account = s.exec(query).first()
    if account is None:
        account = Account(kind=kind, **keys)
        s.add(account)
        s.flush()
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
) -> list[LedgerEntry]:
    """Write one movement: a row per leg and the matching balance changes, or nothing.

    Legs must sum to zero unless `grant`. Raises LedgerError if an account would go below
    zero; the caller's session is then rolled back by `Database.session`.
    """
    legs = [leg for leg in legs if leg.amount != 0]
    if not legs:
        raise LedgerError(f"{kind}: nothing to move")
    if not grant and sum(leg.amount for leg in legs) != 0:
        raise LedgerError(f"{kind}: the legs of a movement must sum to zero")
    movement = uuid.uuid4().hex
    rows = []
    for leg in legs:
        result = s.execute(
            update(Account)
            .where(Account.id == leg.account.id, Account.balance + leg.amount >= 0)
            .values(balance=Account.balance + leg.amount)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            raise LedgerError(
                f"{kind}: account {leg.account.id} ({leg.account.kind}) cannot pay {-leg.amount}"
            )
        if leg.account in s:  # the attribute is stale now; read it again when asked
            s.expire(leg.account, ["balance"])
        row = LedgerEntry(
            account_id=leg.account.id,
            amount=leg.amount,
            kind=kind,
            movement=movement,
            hand_id=hand_id,
            table_id=table_id,
            reason=reason,
        )
        s.add(row)
        rows.append(row)
    s.flush()
    return rows


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
    if amount <= 0:
        raise LedgerError(f"{kind}: an amount must be positive, got {amount}")
    return move(
        s,
        [Leg(source, -amount), Leg(target, amount)],
        kind,
        hand_id=hand_id,
        table_id=table_id,
        reason=reason,
    )


def grant(s: Session, user: User, amount: int, reason: str) -> LedgerEntry:
    """An admin adds (or, negative, takes) money; a balance never goes below 0 (C-0.1)."""
    if amount == 0:
        raise LedgerError("a grant must not be zero")
    assert user.id is not None
    (row,) = move(s, [Leg(user_account(s, user.id), amount)], GRANT, reason=reason, grant=True)
    return row


def post(
    s: Session,
    transfers: Iterable[Transfer],
    *,
    hand_id: int,
    table_id: int,
    stacks: bool = False,
    reason: str = "",
) -> list[LedgerEntry]:
    """Record the engine's `Transfer`s of one hand (app/engine/hand.py), one movement each.

    Player names are users; "pot" is this hand's pot, "house" the house. A player pays from
    and is paid to his balance (classic, C-0.2) or, with `stacks`, his stack at the table.
    """
    parties: dict[str, Account] = {}

    def party(name: str) -> Account:
        if name not in parties:
            if name == ENGINE_POT:
                parties[name] = pot_account(s, hand_id)
            elif name == ENGINE_HOUSE:
                parties[name] = house_account(s)
            else:
                user = s.exec(select(User).where(User.name == name)).first()
                if user is None or user.id is None:
                    raise LedgerError(f"no user named {name!r}")
                parties[name] = (
                    stack_account(s, user.id, table_id) if stacks else user_account(s, user.id)
                )
        return parties[name]

    rows: list[LedgerEntry] = []
    for t in transfers:
        rows += transfer(
            s,
            party(t.source),
            party(t.target),
            t.amount,
            t.kind,
            hand_id=hand_id,
            table_id=table_id,
            reason=reason,
        )
    return rows


def practice_table(s: Session, table_id: int) -> bool:
    """B-1.4: a practice table plays with its own chips, never with the balance."""
    table = s.get(Table, table_id)
    return table is not None and bool(table_variant(s, table).rules.get("practice"))


def buy_in(s: Session, user_id: int, table_id: int, amount: int) -> list[LedgerEntry]:
    """Move money from a balance to a stack at a table (S-1.5); at a practice table the
    chips are granted to the stack and the balance is not touched (B-1.4)."""
    source, target = user_account(s, user_id), stack_account(s, user_id, table_id)
    if practice_table(s, table_id):
        return move(s, [Leg(target, amount)], GRANT, table_id=table_id, reason=PRACTICE, grant=True)
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
            LedgerEntry.movement.in_(movements),  # type: ignore[attr-defined]
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
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(s: Session) -> Books:
    """Prove the books balance (C-0.3): every balance is the sum of its rows, every movement
    but a grant sums to zero, no account is negative, finished hands' pots are empty, and
    the money granted is exactly the balances plus the money in play."""
    books = Books()
    sums = dict(
        s.exec(
            select(LedgerEntry.account_id, func.sum(LedgerEntry.amount)).group_by(
                LedgerEntry.account_id
            )
        ).all()
    )
    hand_status = dict(s.exec(select(HandRecord.id, HandRecord.status)).all())
    closed_tables = set(s.exec(select(Table.id).where(Table.closed)).all())
    for account in s.exec(select(Account)).all():
        where = f"account {account.id} ({account.kind})"
        if account.balance != sums.get(account.id, 0):
            books.problems.append(
                f"{where}: balance {account.balance} but its rows sum to {sums.get(account.id, 0)}"
            )
        if account.balance < 0:
            books.problems.append(f"{where}: negative balance {account.balance}")
        if account.kind == POT and hand_status.get(account.hand_id) != PLAYING:
            if account.balance:
                books.problems.append(
                    f"{where}: {account.balance} left in the pot of the "
                    f"{hand_status.get(account.hand_id, 'missing')} hand {account.hand_id}"
                )
        elif account.kind == STACK and account.table_id in closed_tables and account.balance:
            books.problems.append(f"{where}: {account.balance} on the closed table")
        if account.kind in (USER, HOUSE):
            books.balances += account.balance
        else:
            books.in_play += account.balance
    for movement, kind, total in s.exec(
        select(LedgerEntry.movement, LedgerEntry.kind, func.sum(LedgerEntry.amount)).group_by(
            LedgerEntry.movement, LedgerEntry.kind
        )
    ):
        if kind == GRANT:
            books.granted += total
        elif total:
            books.problems.append(f"movement {movement} ({kind}) sums to {total}, not 0")
    if books.granted != books.balances + books.in_play:
        books.problems.append(
            f"granted {books.granted} but balances {books.balances} + in play {books.in_play}"
        )
    return books
