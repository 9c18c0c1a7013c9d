"""Who sits where at one live table: the seats, the FIFO queue (C-1.2) and the money each
seated player plays from — his balance (C-0.2) or his stack bought in here (S-1.5).

A part of `LiveTable` (runtime.py), which calls it under the table's lock; it knows nothing
of the gathering or the hand: standing up a player who plays in the hand is the owner's
decision, freeing his seat and remembering that he leaves after the hand are this part's.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterable
from typing import Any

from app.engine.hand import Event, Hand
from app.engine.variants import Variant
from app.ledger import LedgerError

from .model import Member, Person, TableError
from .store import Books
from .view import Sitter

GONE_KEEP = 64  # the last players who lost a seat here whose reason is kept for them


class Seating:
    """The seats, the queue and the money of one table."""

    def __init__(self, size: int, books: Books):
        self.books = books
        self.seats: list[Member | None] = [None] * size
        self.queue: deque[tuple[Person, int | None]] = deque()
        self._money: dict[str, int] = {}
        self._gone: dict[str, dict[str, Any]] = {}  # name → his last `stood` event's data

    # --- reading --------------------------------------------------------------------------
    def members(self) -> list[Member]:
        """Seated players in seat (clockwise) order."""
        return [m for m in self.seats if m is not None]

    def member(self, name: str) -> Member | None:
        return next((m for m in self.members() if m.name == name), None)

    def seated(self, person: Person) -> Member:
        """`person`'s seat, or the refusal `not_seated`."""
        member = self.member(person.name)
        if member is None:
            raise TableError("not_seated", "you are not seated at this table")
        return member

    def seat_of(self, name: str) -> int:
        member = self.member(name)
        assert member is not None
        return member.seat

    def queued(self, name: str) -> bool:
        return any(p.name == name for p, _ in self.queue)

    def occupancy(self) -> tuple[int, int]:
        """Seats taken and queue length, as the lobby lists them (C-1.2)."""
        return len(self.members()), len(self.queue)

    def leaving(self, name: str) -> bool:
        """He plays in the hand but leaves when it ends (S-1.7)."""
        member = self.member(name)
        return member is not None and member.leaving

    def frozen(
        self, answer: Callable[[str], str | None]
    ) -> tuple[tuple[Sitter | None, ...], tuple[str, ...]]:
        """The seats and the queue as a snapshot keeps them (`answer`: the gathering's)."""
        seats = tuple(
            None if m is None else Sitter(m.seat, m.person, answer(m.name), m.leaving)
            for m in self.seats
        )
        return seats, tuple(p.name for p, _ in self.queue)

    def gone(self) -> dict[str, dict[str, Any]]:
        """Why each player who lost his seat here lost it (a copy): told to him until he
        sits or queues again (docs/protocol.md, `you.stood`)."""
        return {name: dict(data) for name, data in self._gone.items()}

    # --- money ----------------------------------------------------------------------------
    def money_of(self, name: str) -> int:
        """What he plays from, as last read from the ledger."""
        return self._money.get(name, 0)

    def money(self) -> dict[str, int]:
        """A copy of what each seated player plays from."""
        return dict(self._money)

    def refresh(self, names: Iterable[str]) -> None:
        """The money of `names` as the ledger has it now."""
        self._money.update(self.books.money(names))

    def show(self, name: str, amount: int) -> None:
        """An admin's grant shows anew between hands (C-0.1, C-0.2)."""
        self._money[name] = amount

    def standing(self, members: Iterable[Member], practice: bool) -> dict[int, int]:
        """`refresh` for `members` and, in the same read, user id → another money table
        holding his money now (docs/rules.md, «Money at one table at a time»; none at a
        practice table, B-1.4)."""
        money, elsewhere = self.books.standing({m.name: m.person.id for m in members}, practice)
        self._money.update(money)
        return elsewhere

    def check_elsewhere(self, person: Person, practice: bool) -> None:
        """An account plays for money at one table at a time (docs/rules.md, «Money at one
        table at a time»): refused (`money`) while its money is committed at another."""
        if practice:  # B-1.4: chips, not money
            return
        refuse_elsewhere(self.books.elsewhere({person.name: person.id}).get(person.id))

    def broke(self, hand_cls: type[Hand], variant: Variant, bots: Collection[str]) -> list[Member]:
        """docs/rules.md, «No money, no seat»: when a gathering opens, a person whose money,
        read anew, no longer pays the ante (C-1.8) leaves his seat for a spectator's, so he
        holds up no gathering. Bots see to their own money (app/bots/), and a practice match
        just ends (B-1.4). The money as last read: the caller reads every member's just
        before (`standing`, `refresh`)."""
        if variant.rules.get("practice"):
            return []
        return [
            m
            for m in self.members()
            if m.name not in bots and not hand_cls.playable(variant, self.money_of(m.name))
        ]

    def minimum(self, variant: Variant) -> int:
        """What a seat needs (docs/rules.md, «No money, no seat»): the smallest stack
        (S-1.5), or the ante (C-1.8) where one plays from the balance (C-0.2)."""
        ante = variant["ante"]
        return variant["buy_in_min"] * ante if self.books.stacks else ante

    def check_money(self, person: Person, stack: int | None, variant: Variant) -> int | None:
        """The stack to buy in (S-1.5: `buy_in_min`..`buy_in_max` antes, the smallest by
        default; None where one plays from the balance), refused (`money`, with how much is
        missing) when the balance does not cover it or, at a balance table, the ante."""
        if not self.books.stacks:
            if stack is not None:
                raise TableError("bad_request", f"{variant.game} plays from the balance: no stack")
            need = self.minimum(variant)
            what = f"a seat needs the ante, {need}"
        else:
            ante = variant["ante"]
            low, high = self.minimum(variant), variant["buy_in_max"] * ante
            if stack is None:
                stack = low
            if not low <= stack <= high:
                raise TableError("bad_request", f"a stack is {low} to {high}")
            need = stack
            what = f"your balance does not cover a stack of {stack}"
        short = self.books.short(person.id, need)
        if short:
            raise TableError(
                "money", f"{what}: it lacks {short}", fields={"need": need, "short": short}
            )
        return stack

    # --- changes --------------------------------------------------------------------------
    def leaves_after_hand(self, member: Member, why: str = "left", by: str | None = None) -> None:
        """He left (or was stood up, `why`; by the host `by`) while playing in the hand: his
        seat is freed when it ends (S-1.7), and he is told `why` then."""
        member.leaving, member.why = True, why
        member.stood_by = member.stood_by or by

    def idle_after_hand(self, name: str) -> None:
        """He let his own timer run out: stood up when the hand ends (C-1.7's Decision)."""
        member = self.member(name)
        if member is not None:
            member.idle = True

    def after_hand(self) -> list[tuple[Member, str]]:
        """Who stands up now that the hand ended, and why: "timeout" (C-1.7's Decision),
        else the reason he left for (S-1.7: "host" with `stood_by`)."""
        return [(m, "timeout" if m.idle else m.why) for m in self.members() if m.leaving or m.idle]

    def remember(self, events: Iterable[Event]) -> None:
        """Keep the reason of every `stood` (whoever freed the seat, for whatever reason but
        his own «Выйти»), and forget it once he sits or queues again."""
        for event in events:
            name = event.player
            if name is None:
                continue
            if event.kind == "stood" and event.data.get("why") != "left":
                self._gone.pop(name, None)
                self._gone[name] = dict(event.data)
                while len(self._gone) > GONE_KEEP:
                    del self._gone[next(iter(self._gone))]
            elif event.kind in ("sat", "queued", "stood"):
                self._gone.pop(name, None)

    def free_seat(self, seat: int | None) -> int | None:
        """The seat `person` asked for (checked), the first free one for None; None when
        the table is full."""
        free = [i for i, m in enumerate(self.seats) if m is None]
        if seat is not None:
            if not 0 <= seat < len(self.seats):
                raise TableError("bad_request", f"no seat {seat}")
            if seat not in free:
                raise TableError("not_now", f"seat {seat} is taken")
            return seat
        return free[0] if free else None

    def enqueue(self, person: Person, stack: int | None) -> Event:
        self.queue.append((person, stack))
        return Event("queued", person.name, {"place": len(self.queue)})

    def dequeue(self, name: str) -> Event | None:
        """Out of the queue (None when he was not in it)."""
        for i, (queued, _) in enumerate(self.queue):
            if queued.name == name:
                del self.queue[i]
                return Event("dequeued", name, {"why": "left"})
        return None

    def place(self, person: Person, seat: int, stack: int | None) -> Event:
        """Seat `person`, buying in his stack first (S-1.5)."""
        if stack is not None:
            try:
                self.books.buy_in(person.id, stack)
            except LedgerError as refused:
                raise TableError("money", str(refused)) from None
        self.seats[seat] = Member(person, seat)
        self.refresh([person.name])
        return Event("sat", person.name, {"seat": seat})

    def free(self, member: Member, why: str, by: str | None = None) -> Event:
        """The seat is empty again, the stack back in the balance (S-1.5)."""
        if self.books.stacks:
            self.books.cash_out([member.person.id])
        self.seats[member.seat] = None
        self._money.pop(member.name, None)
        return Event("stood", member.name, {"why": why, **({"by": by} if by else {})})

    def seat_from_queue(self) -> list[Event]:
        """C-1.2: a freed seat goes to the head of the queue."""
        events = []
        while self.queue and None in self.seats:
            person, stack = self.queue.popleft()
            try:
                events.append(self.place(person, self.seats.index(None), stack))
            except TableError as refused:
                events.append(Event("dequeued", person.name, {"why": refused.reason}))
        return events

    def reseat(self, people: Iterable[Person]) -> None:
        """A hand replayed after a restart: its players in its seat order (C-8.5)."""
        for i, person in enumerate(people):
            self.seats[i] = Member(person, i)

    def clear(self) -> None:
        """The table closed: every seat and the queue empty."""
        self.seats = [None] * len(self.seats)
        self.queue.clear()


def refuse_elsewhere(other: int | None) -> None:
    """Refused (`money`) when `other`, another money table, holds his money now
    (docs/rules.md, «Money at one table at a time»)."""
    if other is not None:
        raise TableError("money", f"your money is in play at table {other}: finish there first")
