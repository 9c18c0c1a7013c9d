"""What a live table keeps in the database: hands in play, their payments, stacks.

A hand in play is always on disk as its hand file so far (`handfile.record`: seats, dealer,
dark, deals, actions) in `HandRecord.hand_file`, with the action log also in
`HandRecord.actions`; each applied action is committed in one transaction with the ledger
rows of its payments (C-0.3, C-8.5). That is everything a restart needs to replay the hand or
refund it.

Under eventlet every statement holds the whole process, so an action costs what it must and
no more: the UPDATE of the balances, the INSERT of the ledger rows and the UPDATE of the hand
row, on a bare connection (`Database.core`: no ORM session around Core statements), on its
driver's cursor (`app.models.db.run`: statements compiled once, no SQLAlchemy per call). The
store remembers, for each hand in play, its table and the accounts of its parties (`_Hand`),
and learns them only from committed transactions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlmodel import Session, col, select

from app import ledger, metrics
from app.engine.hand import Transfer
from app.engine.variants import Variant
from app.models import (
    CANCELLED,
    FINISHED,
    PLAYING,
    POT,
    STACK,
    Account,
    Database,
    HandRecord,
    Table,
    User,
    utcnow,
)
from app.models.db import run
from app.table_rules import playable_variant

# An action saves its hand's row in place, without loading it: the columns given, by id.
# Not typed (next line): SQLModel sets `__table__` on a table model at runtime.
HANDS = HandRecord.__table__  # type: ignore[attr-defined]
NEW_HAND = insert(HANDS)
SAVE_HAND = update(HANDS).where(HANDS.c.id == bindparam("hand"))


@dataclass
class _Hand:
    """What the store keeps of a hand in play so that an action need not look it up: its
    table and its parties' accounts (name → id, see `ledger.post`). Only what a committed
    transaction found goes in: an account opened by a transaction rolled back does not
    exist, and SQLite would give its id to the next one. A kept id stays right because an
    account is never deleted and its keys (kind, user, table, hand) never change."""

    table_id: int
    parties: dict[str, int] = field(default_factory=dict)


class _InPlay:
    """The hands in play by id, and by party: which hands a name has paid into. A «Готов»
    and a hand's start ask where else their players' money is (`TableStore.elsewhere`);
    walking every table's hand for it made each answer cost more the more tables played
    (docs/performance.md, «A «Готов» no longer walks every table»)."""

    def __init__(self) -> None:
        self._by_id: dict[int, _Hand] = {}
        self._by_party: dict[str, set[int]] = {}

    def get(self, hand_id: int) -> _Hand | None:
        return self._by_id.get(hand_id)

    def keep(self, hand_id: int, hand: _Hand) -> None:
        self.drop(hand_id)
        self._by_id[hand_id] = hand
        for name in hand.parties:
            self._by_party.setdefault(name, set()).add(hand_id)

    def drop(self, hand_id: int) -> None:
        hand = self._by_id.pop(hand_id, None)
        if hand is None:
            return
        for name in hand.parties:
            hands = self._by_party[name]
            hands.discard(hand_id)
            if not hands:
                del self._by_party[name]

    def tables_of(self, names: Iterable[str], table_id: int) -> dict[str, int]:
        """Name → another table with a hand in play that he paid into (C-0.2)."""
        return {
            name: self._by_id[hand_id].table_id
            for name in names
            for hand_id in self._by_party.get(name, ())
            if self._by_id[hand_id].table_id != table_id
        }


class TableStore:
    """The database side of every live table of this process."""

    def __init__(self, db: Database):
        self.db = db
        self._hands = _InPlay()

    # --- tables and money ---------------------------------------------------------------
    def open_tables(self) -> list[tuple[Table, Variant]]:
        with self.db.session() as s:
            tables = s.exec(select(Table).where(Table.closed == False)).all()  # noqa: E712
            played = ((t, playable_variant(s, t)) for t in tables)
            return [(t, variant) for t, variant in played if variant is not None]

    def table(self, table_id: int) -> tuple[Table, Variant] | None:
        with self.db.session() as s:
            table = s.get(Table, table_id)
            if table is None or table.closed:
                return None
            variant = playable_variant(s, table)
            return None if variant is None else (table, variant)

    def money(self, table_id: int, names: Iterable[str], stacks: bool) -> dict[str, int]:
        """What each player plays from: his balance (C-0.2) or his stack here (S-1.5)."""
        with self.db.core() as s:
            return ledger.balances(s, names, table_id, stacks)

    def elsewhere(self, table_id: int, people: Mapping[str, int]) -> dict[int, int]:
        """User id → another money table holding his money now, for `people` (name → user
        id): a hand in play there that he paid into (C-0.2: the hands of this process, kept
        here) or a stack there (S-1.5, `ledger.stacks_elsewhere`, any process). Across
        processes a hand is not seen: the ledger's guard then refuses a payment it cannot
        make (docs/rules.md, «Money at one table at a time»)."""
        with self.db.core() as s:
            return self._elsewhere(s, table_id, people)

    def standing(
        self, table_id: int, people: Mapping[str, int], stacks: bool, practice: bool
    ) -> tuple[dict[str, int], dict[int, int]]:
        """`money` and `elsewhere` for `people` in one session: a table asks both at every
        «Готов» and when a hand starts, and a session costs more than its two SELECTs
        (docs/performance.md, «Where 1,000 players' server time goes»). A practice table
        (B-1.4) plays chips: no money of theirs is elsewhere for it."""
        with self.db.core() as s:
            money = ledger.balances(s, people.keys(), table_id, stacks)
            return money, {} if practice else self._elsewhere(s, table_id, people)

    def _elsewhere(self, s: ledger.Db, table_id: int, people: Mapping[str, int]) -> dict[int, int]:
        found = {
            people[name]: other for name, other in self._hands.tables_of(people, table_id).items()
        }
        stacks = ledger.stacks_elsewhere(s, people.values(), table_id)
        return {**stacks, **ledger.money_tables(s, found)} if found else stacks

    def set_occupancy(self, table_id: int, occupancy: tuple[int, int]) -> None:
        """Keep the seats taken and the queue length where every process's lobby reads them."""
        with self.db.session() as s:
            s.execute(
                update(Table)
                .where(col(Table.id) == table_id)
                .values(seated=occupancy[0], queued=occupancy[1])
            )

    def short(self, table_id: int, user_id: int, amount: int) -> int:
        """What the user's balance lacks of `amount` to sit down here (0 when it covers it,
        and always at a practice table, whose chips are granted: B-1.4)."""
        with self.db.session() as s:
            if ledger.practice_table(s, table_id):
                return 0
            return max(0, amount - ledger.user_balance(s, user_id))

    def set_rules(self, table_id: int, rules: Mapping[str, Any]) -> None:
        """Keep rules changed at a live table with the table's own overrides."""
        with self.db.session() as s:
            table = s.get(Table, table_id)
            if table is not None:
                table.rules = {**table.rules, **rules}
                s.add(table)

    def buy_in(self, table_id: int, user_id: int, amount: int) -> None:
        """Sitting down at a stack table takes the stack from the balance (S-1.5)."""
        with self.db.session() as s:
            ledger.buy_in(s, user_id, table_id, amount)

    def cash_out(self, table_id: int, user_ids: Iterable[int]) -> None:
        """Standing up returns the whole stack to the balance (S-1.5)."""
        with self.db.session() as s:
            for user_id in user_ids:
                ledger.cash_out(s, user_id, table_id)

    def closed_tables_with_stacks(self) -> list[int]:
        """Closed tables still holding chips (a crash while closing): to be returned."""
        with self.db.session() as s:
            rows = s.exec(
                select(Account.table_id)
                .join(Table, col(Table.id) == Account.table_id)
                .where(Account.kind == STACK, Account.balance > 0, Table.closed == True)  # noqa: E712
                .distinct()
            ).all()
            return [r for r in rows if r is not None]

    def stacked_users(self, table_id: int) -> list[int]:
        """Users with chips on this table's stacks (to return them after a restart)."""
        with self.db.session() as s:
            rows = s.exec(
                select(Account.user_id).where(
                    Account.kind == STACK, Account.table_id == table_id, Account.balance > 0
                )
            ).all()
            return [r for r in rows if r is not None]

    # --- hands --------------------------------------------------------------------------
    def begin_hand(
        self, table_id: int, doc: dict[str, Any], transfers: Sequence[Transfer], stacks: bool
    ) -> int:
        """A new hand in play with its antes paid, in one transaction; returns its id."""
        hand = _Hand(table_id)
        with self.db.core() as s:
            new = dict(
                table_id=table_id, status=PLAYING, hand_file=doc, actions=[], started=utcnow()
            )
            inserted = s.execute(NEW_HAND, new)
            hand_id: int = inserted.inserted_primary_key[0]  # type: ignore[index]  # an INSERT has one
            hand.parties[POT] = ledger.open_pot(s, hand_id)
            ledger.post(
                s,
                transfers,
                hand_id=hand_id,
                table_id=table_id,
                stacks=stacks,
                parties=hand.parties,
            )
        self._hands.keep(hand_id, hand)
        metrics.HANDS.labels(game=str(doc.get("variant"))).inc()
        return hand_id

    def record(
        self,
        hand_id: int,
        doc: dict[str, Any],
        transfers: Sequence[Transfer],
        stacks: bool,
        finished: bool,
    ) -> None:
        """One applied action: the hand so far and its payments, committed together."""
        with self.db.core() as s:
            kept = self._hands.get(hand_id)
            if kept is None:  # a hand resumed after a restart
                kept = _Hand(
                    s.execute(
                        select(HandRecord.table_id).where(HandRecord.id == hand_id)
                    ).scalar_one()
                )
            hand = _Hand(kept.table_id, dict(kept.parties))  # a copy until committed
            ledger.post(
                s,
                transfers,
                hand_id=hand_id,
                table_id=hand.table_id,
                stacks=stacks,
                parties=hand.parties,
            )
            done = {"status": FINISHED, "finished": utcnow()} if finished else {}
            run(
                s, SAVE_HAND, {"hand": hand_id, "hand_file": doc, "actions": doc["actions"], **done}
            )
        # Committed: what this transaction found is now safe to keep (`_Hand`).
        if finished:
            self._hands.drop(hand_id)
        else:
            self._hands.keep(hand_id, hand)

    def forget(self, hand_id: int) -> None:
        """A hand ended outside the store (an admin's close cancelled it)."""
        self._hands.drop(hand_id)

    def unfinished_hands(self) -> list[HandRecord]:
        with self.db.session() as s:
            return list(
                s.exec(
                    select(HandRecord)
                    .where(HandRecord.status == PLAYING)
                    .order_by(col(HandRecord.id))
                ).all()
            )

    def hand_doc(self, hand_id: int) -> dict[str, Any] | None:
        with self.db.session() as s:
            record = s.get(HandRecord, hand_id)
            return None if record is None else record.hand_file

    def cancel_hand(self, hand_id: int, reason: str) -> None:
        """A hand that cannot go on: every payment into it goes back to its owner (C-8.5)."""
        with self.db.session() as s:
            record = s.get(HandRecord, hand_id)
            assert record is not None
            ledger.refund(s, hand_id, reason)
            record.status, record.finished = CANCELLED, utcnow()
            s.add(record)
        self._hands.drop(hand_id)

    # --- helpers ------------------------------------------------------------------------
    def user_ids(self, names: Iterable[str]) -> dict[str, int]:
        with self.db.session() as s:
            return {name: self._user_id(s, name) for name in names}

    @staticmethod
    def _user_id(s: Session, name: str) -> int:
        user_id = s.exec(select(User.id).where(User.name == name)).first()
        if user_id is None:
            raise LookupError(f"no user named {name!r}")
        return user_id

    def books(self, table_id: int, stacks: bool) -> Books:
        """One table's side of the store (`Books`)."""
        return Books(self, table_id, stacks)


@dataclass(frozen=True)
class Books:
    """The store as one live table uses it: its id, and whether it plays from stacks
    (S-1.5) or from the balance (C-0.2), are the table's, so no call passes them."""

    store: TableStore
    table_id: int
    stacks: bool

    def money(self, names: Iterable[str]) -> dict[str, int]:
        return self.store.money(self.table_id, names, self.stacks)

    def short(self, user_id: int, amount: int) -> int:
        return self.store.short(self.table_id, user_id, amount)

    def buy_in(self, user_id: int, amount: int) -> None:
        self.store.buy_in(self.table_id, user_id, amount)

    def cash_out(self, user_ids: Iterable[int]) -> None:
        self.store.cash_out(self.table_id, user_ids)

    def set_rules(self, rules: Mapping[str, Any]) -> None:
        self.store.set_rules(self.table_id, rules)

    def begin_hand(self, doc: dict[str, Any], transfers: Sequence[Transfer]) -> int:
        return self.store.begin_hand(self.table_id, doc, transfers, self.stacks)

    def record(
        self, hand_id: int, doc: dict[str, Any], transfers: Sequence[Transfer], finished: bool
    ) -> None:
        self.store.record(hand_id, doc, transfers, self.stacks, finished)

    def hand_doc(self, hand_id: int) -> dict[str, Any] | None:
        return self.store.hand_doc(hand_id)

    def elsewhere(self, people: Mapping[str, int]) -> dict[int, int]:
        return self.store.elsewhere(self.table_id, people)

    def standing(
        self, people: Mapping[str, int], practice: bool
    ) -> tuple[dict[str, int], dict[int, int]]:
        return self.store.standing(self.table_id, people, self.stacks, practice)

    def forget(self, hand_id: int) -> None:
        self.store.forget(hand_id)
