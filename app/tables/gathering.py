"""The gathering between hands at one live table: «Готов», «Пропустить», the dark, the
gathering timer and the presumed dealer (C-1.3 … C-1.6, C-2.3, S-1.6, B-4.1).

A part of `LiveTable` (runtime.py), called under the table's lock; it keeps each seated
player's answer (`answer_of`), the seats being the seating's. It never starts a hand:
it says when one should start (`complete`, `due`) and who would play it (`lineup`); the
owner starts it with the play part and then tells this part (`started`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from app.engine.game import Manners
from app.engine.games import SCORERS
from app.engine.hand import DealSource, Event, Hand, Seat
from app.engine.variants import Variant

from .fair import TableFairness
from .model import DARK, READY, SKIP, Member, TableError
from .scheduler import Scheduler
from .seating import Seating

GATHER_SECONDS = 30  # C-1.3, for games without a parameter of their own (svara32)
START, EXTEND, LAPSE = "start", "extend", "lapse"  # what a gathering timer's end asks for


@dataclass(frozen=True)
class DarkChoice:
    """«Темнить»/«Тёмный» as chosen: valid only if dealer and candidate stay (C-1.6)."""

    name: str
    dealer: str


@dataclass(frozen=True)
class Lineup:
    """Who plays the hand that starts now: seats with their money, the dealer, the dark,
    and its deals from the committed seed and the seeds offered (docs/fairness.md)."""

    seats: list[Seat]
    dealer: str
    dark: str | None
    deals: DealSource


Saved = tuple[DarkChoice | None, bool, bool, float | None]


class Gathering:
    """The answers, the timer and the dealer between hands. `variant` is the table's
    current one (the owner replaces it when the rules change between hands)."""

    def __init__(
        self,
        table_id: int,
        seating: Seating,
        hand_cls: type[Hand],
        variant: Variant,
        manners: Manners,
        scheduler: Scheduler,
        expired: Callable[[], None],
    ):
        self.key = (table_id, "gather")
        self.seating, self.hand_cls, self.variant = seating, hand_cls, variant
        self.manners, self.scheduler, self._expired = manners, scheduler, expired
        self.open = False
        self.deadline: float | None = None
        self.extended = False
        self.dark: DarkChoice | None = None
        self.answers: dict[str, str] = {}  # who answered what since the last hand began
        self.dealer_seat: int | None = None
        self.fairness = TableFairness()  # the next hand's commitment, the seeds offered

    # --- who would play, who deals ------------------------------------------------------
    def presumed(self) -> tuple[list[Seat], str | None]:
        """The seats that would play now (seated, not skipping) and their dealer (C-1.5)."""
        money = self.seating.money_of
        seats = [
            Seat(m.name, money(m.name))
            for m in self.seating.members()
            if self.answers.get(m.name) != SKIP
        ]
        return seats, self.dealer_of([s.name for s in seats])

    def dealer_of(self, names: Sequence[str]) -> str | None:
        """C-2.3: the last winner's seat, or the next of `names` clockwise from it; the
        first hand's dealer seat is drawn at random once."""
        if not names:
            return None
        seat_of = self.seating.seat_of
        if self.dealer_seat is None:
            self.dealer_seat = seat_of(secrets.choice(list(names)))
        first, n = self.dealer_seat, len(self.seating.seats)
        return min(names, key=lambda name: (seat_of(name) - first) % n)

    def deals_next(self, name: str) -> None:
        """`name`'s seat deals the next hand (C-2.3: the winner; a resumed hand's dealer)."""
        self.dealer_seat = self.seating.seat_of(name)

    def dark_candidate(self) -> tuple[str | None, str | None]:
        """Who may play dark now (left of the presumed dealer, with two or more to play),
        and that dealer."""
        seats, dealer = self.presumed()
        if dealer is None or len(seats) < 2:
            return None, dealer
        return self.hand_cls.dark_candidate(self.variant, seats, dealer), dealer

    def dark_choice(self, member: Member) -> DarkChoice:
        """«Темнить · 15 ₽» (C-1.5) / «Тёмный» (B-4.1): only the candidate, with the money."""
        candidate, dealer = self.dark_candidate()
        if candidate != member.name or dealer is None:
            raise TableError("not_now", "only the player left of the dealer may play dark now")
        return DarkChoice(member.name, dealer)

    def forget(self, name: str) -> None:
        """A player who stood up has no answer and no longer plays dark."""
        self.answers.pop(name, None)
        if self.dark is not None and self.dark.name == name:
            self.dark = None

    def answer_of(self, name: str) -> str | None:
        return self.answers.get(name)

    def set_variant(self, variant: Variant) -> None:
        """The table's rules changed between hands (`LiveTable.set_rules`)."""
        self.variant = variant

    # --- answers ------------------------------------------------------------------------
    def check(self, member: Member, kind: str) -> None:
        """Whether he may answer `kind` (C-1.4: an answer is final once given)."""
        answered = self.answers.get(member.name)
        if answered is not None:
            raise TableError("not_now", f"you already answered: {answered}")
        money = self.seating.money_of(member.name)
        if kind != SKIP and not self.hand_cls.playable(self.variant, money):
            ante = self.variant["ante"]
            raise TableError(
                "money",
                f"you need at least {ante} to play",
                fields={"need": ante, "short": ante - money},
            )

    def answer(self, member: Member, kind: str, seed: str | None = None) -> list[Event]:
        """His answer, checked (`check`), with his page's shuffle seed if it sent one
        (docs/fairness.md); the first «Готов» opens the gathering."""
        self.check(member, kind)
        if kind == DARK:
            self.dark = self.dark_choice(member)
        self.answers[member.name] = kind
        self.fairness.offer(member.name, seed if kind != SKIP else None)
        events = [Event(kind, member.name, {})]
        if kind != SKIP and not self.open:
            events.append(self.start_timer())
        return events

    def saved(self) -> Saved:
        return self.dark, self.open, self.extended, self.deadline

    def restore(self, saved: Saved, name: str) -> None:
        """Back to `saved`: `name`'s answer was refused with the hand it would have started.
        His seed stays the first he gave (docs/fairness.md: a refusal re-rolls nothing)."""
        self.dark, self.open, self.extended, self.deadline = saved
        self.answers.pop(name, None)
        if not self.open:
            self.scheduler.cancel(self.key)

    def ready(self) -> list[Member]:
        return [
            m
            for m in self.seating.members()
            if self.answers.get(m.name) in (READY, DARK)
            and self.hand_cls.playable(self.variant, self.seating.money_of(m.name))
        ]

    def complete(self) -> bool:
        """C-1.3's Decision: start at once when every seated player answered, ≥ 2 ready."""
        members = self.seating.members()
        answered = all(m.name in self.answers for m in members)
        return self.open and answered and len(self.ready()) >= 2

    def silent(self) -> list[Member]:
        """C-1.7: who did not answer leaves the table (classic); in shaha36 he only sits
        this hand out (S-1.6)."""
        if not self.manners.stand_idle:
            return []
        return [m for m in self.seating.members() if m.name not in self.answers]

    def lineup(self, busy: Collection[int] = (), bots: Collection[str] = ()) -> Lineup | None:
        """The hand that starts now without the users `busy` elsewhere (None with fewer
        than two ready). A dark chosen for another dealer or candidate is an ordinary
        «Готов» (C-1.6). `bots` are the seated bots: their seeds are drawn (fairness.md)."""
        players = [m for m in self.ready() if m.person.id not in busy]
        if len(players) < 2:
            return None
        seats = [Seat(m.name, self.seating.money_of(m.name)) for m in players]
        dealer = self.dealer_of([s.name for s in seats])
        assert dealer is not None
        dark = None
        if self.dark is not None and self.dark.dealer == dealer:
            candidate = self.hand_cls.dark_candidate(self.variant, seats, dealer)
            dark = self.dark.name if candidate == self.dark.name else None
        deals = self.fairness.deals(SCORERS[self.variant.game].deck, seats, bots)
        return Lineup(seats, dealer, dark, deals)

    def started(self) -> None:
        """A hand began: the gathering closes, every answer (and seed) is spent."""
        self.fairness.started()
        self.open, self.deadline, self.dark = False, None, None
        self.scheduler.cancel(self.key)
        self.answers.clear()

    # --- the timer ----------------------------------------------------------------------
    def reopens(self, paused: bool) -> bool:
        """Between hands a gathering opens by itself (S-1.6), unless the host paused."""
        return self.manners.gather_after_hand and not paused and len(self.seating.members()) >= 2

    def start_timer(self) -> Event:
        """C-1.3: the first «Готов» starts the gathering timer."""
        self.open, self.extended = True, False
        return Event("gathering", None, {"deadline": self._arm()})

    def _arm(self) -> float:
        """A full gathering period from now (`ready_seconds`, `new_hand_seconds`, C-1.3's 30 s)."""
        param = self.manners.gather_param
        self.deadline = self.scheduler.deadline_in(self.variant[param] if param else GATHER_SECONDS)
        self.scheduler.set(self.key, self.deadline, self._expired)
        return self.deadline

    def due(self) -> str:
        """What the timer's end asks for: START with two ready, else EXTEND once (C-1.3),
        else LAPSE (C-1.3's Decision: wait for a new «Готов»)."""
        if len(self.ready()) >= 2:
            return START
        return LAPSE if self.extended else EXTEND

    def extend(self) -> Event:
        self.extended = True
        return Event("extended", None, {"deadline": self._arm()})

    def lapse(self) -> Event:
        self.open, self.deadline = False, None
        return Event("gathering_lapsed", None, {})

    def pause(self) -> None:
        """The host paused the table: no gathering runs, its answers are void (each «Готов»
        is given again after the pause); the seeds offered stay (docs/fairness.md)."""
        self.stop()
        self.extended, self.deadline, self.dark = False, None, None
        self.answers.clear()

    def stop(self) -> None:
        """The table closed: a timer already due does nothing now."""
        self.open = False
        self.scheduler.cancel(self.key)
