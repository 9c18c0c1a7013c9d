"""One live table: the only caller of the engine during play (architecture.md).

A `LiveTable` holds the seats, the FIFO queue (C-1.2), the gathering between hands (C-1.3 …
C-1.6, S-1.6, B-4.1) and the hand in play. Every operation takes the table's lock, so
actions are applied one at a time; each change commits its payments and the hand so far
(store.py), bumps the table's `version` and sends every watcher his own state: a seated
participant the engine's `view(name)`, everyone else the public `view(None)` — so no client
ever receives a card it may not see. Timers are deadlines in the one `Scheduler`; a turn
timer running out feeds the engine a `timeout` action.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.engine import games
from app.engine.hand import (
    DECLARED,
    Action,
    Event,
    Hand,
    RuleError,
    Seat,
    shuffled_deals,
)
from app.engine.handfile import record, replay_record
from app.engine.scoring import SCORERS
from app.engine.variants import Variant
from app.ledger import LedgerError

from .chat import Chat, ChatRefused
from .scheduler import Scheduler
from .store import TableStore

log = logging.getLogger(__name__)

READY, SKIP, DARK = "ready", "skip", "dark"
CLOSED = "table:closed"  # to the watchers of a table the administrator closed
WAITING, GATHERING, PLAYING = "waiting", "gathering", "playing"
NEWS_KEEP = 200  # changes whose events a reconnecting client can catch up on (issue 5.10)
GATHER_SECONDS = 30  # C-1.3, for games without a parameter of their own (svara32)


class TableError(Exception):
    """A request the table refuses; nothing changed. `code` is for programs, `reason` for
    people (docs/protocol.md lists the codes)."""

    def __init__(self, code: str, reason: str, state: dict[str, Any] | None = None):
        super().__init__(reason)
        self.code, self.reason, self.state = code, reason, state


@dataclass(frozen=True)
class Person:
    """A user at the table: his account id and his name (the engine's player name); a bot
    (app/bots/) also brings its avatar, which the seats show (docs/protocol.md)."""

    id: int
    name: str
    avatar: str | None = None


@dataclass
class Member:
    """A seated player. `answer` is his reply to the gathering; `idle` and `leaving` stand
    him up when the hand ends (C-1.7's Decision, S-1.7)."""

    person: Person
    seat: int
    answer: str | None = None
    idle: bool = False
    leaving: bool = False

    @property
    def name(self) -> str:
        return self.person.name


@dataclass(frozen=True)
class DarkChoice:
    """«Темнить»/«Тёмный» as chosen: valid only if dealer and candidate stay (C-1.6)."""

    name: str
    dealer: str


@dataclass
class Turn:
    """The running hand timer: whom it waits for, in which phase, until when."""

    awaiting: frozenset[str]
    phase: str
    deadline: float
    token: int


@dataclass
class Told:
    """What one version's `table:state` tells every viewer alike, built once per version
    (issue 10: not once per watcher). `head` runs from `table` to `queue`, `tail` holds
    `turn`, `last` and `history`; `public_hand` is the hand as every non-participant sees
    it (`view(None)`), made on first need."""

    head: dict[str, Any]
    gathering: dict[str, Any] | None
    tail: dict[str, Any]
    public_hand: dict[str, Any] | None = None


Listener = Callable[[str, dict[str, Any]], None]  # (event, payload) for a watcher in-process


@dataclass
class Services:
    """What every table of the process shares."""

    store: TableStore
    scheduler: Scheduler
    emit: Callable[..., None]  # socketio.emit
    chat: Callable[[int], Chat]  # a table's chat, kept in the database (C-8.4)
    seats_changed: Callable[[int], None]  # the lobby's `publish` (seats taken, queue)


class LiveTable:
    """The authoritative state of one table in this process."""

    def __init__(self, table_id: int, name: str, variant: Variant, services: Services):
        self.id, self.name, self.variant = table_id, name, variant
        self.game = variant.game
        self.manners = games.game(self.game).manners
        self.hand_cls = games.hand_class(self.game)
        self.services = services
        self.store, self.scheduler = services.store, services.scheduler
        self.lock = threading.RLock()
        self.seats: list[Member | None] = [None] * variant["seats"]
        self.queue: deque[tuple[Person, int | None]] = deque()
        self.watchers: dict[str, Person] = {}
        self.listeners: dict[str, Listener] = {}  # watchers served in-process (the bots)
        self.money: dict[str, int] = {}
        # Versions only grow, across restarts too (a client's old number is never current).
        self.version = int(time.time() * 1000)
        self.news: deque[tuple[int, list[Event]]] = deque(maxlen=NEWS_KEEP)
        self.chat = services.chat(table_id)
        # Between hands.
        self.gathering = False
        self.gather_deadline: float | None = None
        self.extended = False
        self.dark: DarkChoice | None = None
        self.dealer_seat: int | None = None
        # The hand in play (or the last one, shown until the next starts).
        self.hand: Hand | None = None
        self.hand_id: int | None = None
        self.actions: list[Action] = []
        self.turn: Turn | None = None
        self.notice: str | None = None  # why the hand in play was interrupted (issue 5.9)
        self.settled = True  # the hand's end was handled (`_hand_over`)
        self._tokens = 0
        self._occupancy = self.occupancy()

    # --- who is where -------------------------------------------------------------------
    def members(self) -> list[Member]:
        """Seated players in seat (clockwise) order."""
        return [m for m in self.seats if m is not None]

    def member(self, name: str) -> Member | None:
        return next((m for m in self.members() if m.name == name), None)

    def _seated(self, person: Person) -> Member:
        member = self.member(person.name)
        if member is None:
            raise TableError("not_seated", "you are not seated at this table")
        return member

    def connected(self, name: str) -> bool:
        return any(p.name == name for p in self.watchers.values())

    def occupancy(self) -> tuple[int, int]:
        """Seats taken and queue length, as the lobby lists them (C-1.2)."""
        return len(self.members()), len(self.queue)

    @property
    def phase(self) -> str:
        if self.hand is not None and not self.hand.finished:
            return PLAYING
        return GATHERING if self.gathering else WAITING

    def in_hand(self, name: str) -> bool:
        """A participant of the hand in play (his cards and turns are the engine's)."""
        # Not typed (next line): PLAYING implies a hand.
        return self.phase == PLAYING and any(s.name == name for s in self.hand.seats)  # type: ignore[union-attr]

    # --- watching: join, leave, connection ----------------------------------------------
    def join(
        self, sid: str, person: Person, since: int | None, listener: Listener | None = None
    ) -> dict[str, Any]:
        """A socket watches the table: the current state, the chat, and what it missed.

        With a `listener`, `sid` names a watcher inside this process (a bot, app/bots/):
        every event for it (its own `table:state`, chat, `table:closed`) is handed to the
        listener instead of Socket.IO, until it leaves or the table closes."""
        with self.lock:
            if listener is not None:
                self.listeners[sid] = listener
            if self._attach(sid, person):
                self._changed([self._event("online", person.name)], skip=sid)
            missed = None
            if since is not None and (
                since == self.version
                or (self.news and self.news[0][0] - 1 <= since <= self.version)
            ):
                missed = [
                    e.as_json()
                    for version, events in self.news
                    if version > since
                    for e in events
                    if e.visible_to(person.name)
                ]
            return {
                "state": self.state_for(person.name, []),
                "chat": self.chat.recent(),
                "missed": missed,
            }

    def follow(self, sid: str, person: Person) -> None:
        """A seated or queued player's new socket watches the table at once (C-8.1, C-8.2)."""
        with self.lock:
            # Still online through the old socket (its disconnect is told late on purpose,
            # app/auth/sockets.py): moving to the new one is no news for the watchers.
            online = self.connected(person.name)
            for old in [old for old, p in self.watchers.items() if p.name == person.name]:
                self._detach(old)
            if self._attach(sid, person) and not online:
                self._changed([self._event("online", person.name)])
            else:
                self._send(sid, "table:state", self.state_for(person.name, []))

    def _attach(self, sid: str, person: Person) -> bool:
        """Add a watcher; True when that brings a seated player back online."""
        back = not self.connected(person.name) and self.member(person.name) is not None
        self.watchers[sid] = person
        if back:
            self.scheduler.cancel((self.id, "offline", person.name))
        return back

    def _detach(self, sid: str) -> Person | None:
        self.listeners.pop(sid, None)
        return self.watchers.pop(sid, None)

    def _send(self, sid: str, event: str, data: dict[str, Any]) -> None:
        """One watcher's event: to its listener when it has one, else to its socket."""
        listener = self.listeners.get(sid)
        if listener is None:
            self.services.emit(event, data, to=sid)
        else:
            listener(event, data)

    def queued(self, name: str) -> bool:
        return any(p.name == name for p, _ in self.queue)

    def leave(self, sid: str) -> None:
        """A socket stops watching (page closed, disconnected, taken over)."""
        with self.lock:
            person = self._detach(sid)
            if person is None or self.connected(person.name):
                return
            member = self.member(person.name)
            if member is None:
                return
            self._arm_offline(person.name)
            self._changed(
                [self._event("offline", person.name), *self._disconnect_acts(person.name)]
            )

    def _disconnect_acts(self, name: str) -> list[Event]:
        """C-5.3: a disconnect cancels a «Варить»/«Делить» vote: a voter who drops refuses,
        a proposer who drops withdraws; either way the proposer's turn goes on with the rest
        of its time (the engine says what a drop declares: `Hand.disconnect_action`)."""
        hand = self.hand
        action = hand.disconnect_action(name) if hand is not None and not hand.finished else None
        if action is None:
            return []
        try:
            return self._apply(action) + self._advance()
        except TableError:
            return []  # not saved: the vote stays, and its timer still ends it

    def _arm_offline(self, name: str) -> None:
        """S-1.7: offline for `offline_seconds`, the player is stood up."""
        if self.manners.stand_offline:
            self.scheduler.set(
                (self.id, "offline", name),
                self.scheduler.deadline_in(self.variant["offline_seconds"]),
                lambda: self._offline_expired(name),
            )

    def _offline_expired(self, name: str) -> None:
        with self.lock:
            member = self.member(name)
            if member is None or self.connected(name):
                return
            self._changed(self._stand(member, "offline"))

    # --- seats and queue (C-1.2, S-1.5) -------------------------------------------------
    def sit(self, person: Person, seat: int | None, stack: int | None) -> None:
        with self.lock:
            if self.member(person.name) is not None:
                raise TableError("not_now", "you are already seated")
            if self.queued(person.name):
                raise TableError("not_now", "you are already in the queue")
            self._check_elsewhere(person)
            stack = self._check_stack(person, stack)
            free = [i for i, m in enumerate(self.seats) if m is None]
            if seat is not None:
                if not 0 <= seat < len(self.seats):
                    raise TableError("bad_request", f"no seat {seat}")
                if seat not in free:
                    raise TableError("not_now", f"seat {seat} is taken")
            if not free:
                self.queue.append((person, stack))
                self._changed([self._event("queued", person.name, place=len(self.queue))])
                return
            self._seat(person, free[0] if seat is None else seat, stack)
            # Not typed (next line): the person was seated just above.
            self._changed([self._event("sat", person.name, seat=self.member(person.name).seat)])  # type: ignore[union-attr]

    def _check_elsewhere(self, person: Person) -> None:
        """An account plays for money at one table at a time (docs/rules.md, «Money at one
        table at a time»): refused (`money`) while its money is committed at another."""
        if self.variant.rules.get("practice"):  # B-1.4: chips, not money
            return
        other = self.store.elsewhere(self.id, {person.name: person.id}).get(person.id)
        if other is not None:
            raise TableError("money", f"your money is in play at table {other}: finish there first")

    def _check_stack(self, person: Person, stack: int | None) -> int | None:
        """S-1.5: a stack of `buy_in_min`..`buy_in_max` antes, covered by the balance."""
        if not self.manners.stacks:
            if stack is not None:
                raise TableError("bad_request", f"{self.game} plays from the balance: no stack")
            return None
        ante = self.variant["ante"]
        low, high = self.variant["buy_in_min"] * ante, self.variant["buy_in_max"] * ante
        if stack is None:
            stack = low
        if not low <= stack <= high:
            raise TableError("bad_request", f"a stack is {low} to {high}")
        if not self.store.covers(self.id, person.id, stack):
            raise TableError("money", f"your balance does not cover a stack of {stack}")
        return stack

    def _seat(self, person: Person, seat: int, stack: int | None) -> None:
        if stack is not None:
            try:
                self.store.buy_in(self.id, person.id, stack)
            except LedgerError as refused:
                raise TableError("money", str(refused)) from None
        self.seats[seat] = Member(person, seat)
        self.money.update(self.store.money(self.id, [person.name], self.manners.stacks))

    def _stand(self, member: Member, why: str) -> list[Event]:
        """Free the seat now, or after the hand if he plays in it (S-1.7)."""
        if self.in_hand(member.name):
            member.leaving = True
            return [self._event("leaving", member.name, why=why), *self._advance()]
        if self.manners.stacks:
            self.store.cash_out(self.id, [member.person.id])
        self.seats[member.seat] = None
        self.money.pop(member.name, None)
        if self.dark is not None and self.dark.name == member.name:
            self.dark = None
        events = [self._event("stood", member.name, why=why)]
        return events + self._seat_from_queue()

    def _seat_from_queue(self) -> list[Event]:
        """C-1.2: a freed seat goes to the head of the queue."""
        events = []
        while self.queue and None in self.seats:
            person, stack = self.queue.popleft()
            try:
                self._seat(person, self.seats.index(None), stack)
            except TableError as refused:
                events.append(self._event("dequeued", person.name, why=refused.reason))
                continue
            # Not typed (next line): the person was seated just above.
            events.append(self._event("sat", person.name, seat=self.member(person.name).seat))  # type: ignore[union-attr]
        return events

    def stand(self, person: Person) -> None:
        with self.lock:
            for i, (queued, _) in enumerate(self.queue):
                if queued.name == person.name:
                    del self.queue[i]
                    self._changed([self._event("dequeued", person.name, why="left")])
                    return
            events = self._stand(self._seated(person), "left")
            with contextlib.suppress(TableError):  # not started now: the gathering timer retries
                events += self._try_start()
            self._changed(events)

    # --- between hands: ready, skip, dark (C-1.3 … C-1.6, S-1.6, B-4.1) -----------------
    def answer(self, person: Person, kind: str) -> None:
        with self.lock:
            if self.phase == PLAYING:
                raise TableError("not_now", "a hand is in play; answer when it ends")
            member = self._seated(person)
            self.money.update(self.store.money(self.id, [member.name], self.manners.stacks))
            if member.answer is not None:  # C-1.4: a confirmed «Готов» cannot be withdrawn
                raise TableError("not_now", f"you already answered: {member.answer}")
            if kind != SKIP and not self.hand_cls.playable(self.variant, self.money[member.name]):
                raise TableError("money", f"you need at least {self.variant['ante']} to play")
            if kind != SKIP:
                self._check_elsewhere(member.person)
            before = (self.dark, self.gathering, self.extended, self.gather_deadline)
            if kind == DARK:
                self.dark = self._dark_choice(member)
            member.answer = kind
            events = [self._event(kind, member.name)]
            if kind != SKIP and not self.gathering:
                events.append(self._open_gathering())
            try:
                events += self._try_start()
            except TableError:  # the database refused the hand: the answer is refused too
                member.answer = None
                self.dark, self.gathering, self.extended, self.gather_deadline = before
                if not self.gathering:
                    self.scheduler.cancel((self.id, "gather"))
                raise
            self._changed(events)

    def _presumed(self) -> tuple[list[Seat], str | None]:
        """The seats that would play now (seated, not skipping) and their dealer (C-1.5)."""
        seats = [
            Seat(m.name, self.money.get(m.name, 0)) for m in self.members() if m.answer != SKIP
        ]
        return seats, self._dealer_of([s.name for s in seats])

    def _dealer_of(self, names: Sequence[str]) -> str | None:
        """C-2.3: the last winner's seat, or the next of `names` clockwise from it; the
        first hand's dealer seat is drawn at random once."""
        if not names:
            return None
        if self.dealer_seat is None:
            self.dealer_seat = self._seat_of(secrets.choice(list(names)))
        n = len(self.seats)
        # Not typed (next line): called only once a dealer seat is set.
        return min(names, key=lambda name: (self._seat_of(name) - self.dealer_seat) % n)  # type: ignore[operator]

    def _seat_of(self, name: str) -> int:
        member = self.member(name)
        assert member is not None
        return member.seat

    def _dark_choice(self, member: Member) -> DarkChoice:
        """«Темнить · 15 ₽» (C-1.5) / «Тёмный» (B-4.1): only the candidate, with the money."""
        seats, dealer = self._presumed()
        candidate = (
            self.hand_cls.dark_candidate(self.variant, seats, dealer)
            if dealer is not None and len(seats) >= 2
            else None
        )
        if candidate != member.name:
            raise TableError("not_now", "only the player left of the dealer may play dark now")
        # Not typed (next line): a dark is offered only when there is a presumed dealer.
        return DarkChoice(member.name, dealer)  # type: ignore[arg-type]

    def _open_gathering(self) -> Event:
        """C-1.3: the first «Готов» starts the gathering timer."""
        self.gathering, self.extended = True, False
        return self._event("gathering", None, deadline=self._arm_gathering())

    def _arm_gathering(self) -> float:
        """A full gathering period from now (`ready_seconds`, `new_hand_seconds`, C-1.3's 30 s)."""
        param = self.manners.gather_param
        self.gather_deadline = self.scheduler.deadline_in(
            self.variant[param] if param else GATHER_SECONDS
        )
        self.scheduler.set((self.id, "gather"), self.gather_deadline, self._gathering_expired)
        return self.gather_deadline

    def _ready(self) -> list[Member]:
        return [
            m
            for m in self.members()
            if m.answer in (READY, DARK)
            and self.hand_cls.playable(self.variant, self.money[m.name])
        ]

    def _try_start(self) -> list[Event]:
        """C-1.3's Decision: at once when every seated player has answered, ≥ 2 ready."""
        if not self.gathering or self.phase == PLAYING:
            return []
        if all(m.answer is not None for m in self.members()) and len(self._ready()) >= 2:
            return self._start_hand()
        return []

    def _gathering_expired(self) -> None:
        with self.lock:
            if not self.gathering:
                return
            events: list[Event] = []
            if len(self._ready()) >= 2:
                events = self._stand_silent()
                try:
                    events += self._start_hand()
                except TableError:  # the database refused the hand: another period, then again
                    self.extended = True
                    deadline = self._arm_gathering()
                    return self._changed(
                        [*events, self._event("extended", None, deadline=deadline)]
                    )
                if self.phase == PLAYING:
                    return self._changed(events)
            elif not self.extended:  # C-1.3: one more period
                self.extended = True
                return self._changed(
                    [self._event("extended", None, deadline=self._arm_gathering())]
                )
            # C-1.3's Decision: wait for a new «Готов»
            self.gathering, self.gather_deadline = False, None
            self._changed([*events, self._event("gathering_lapsed", None), *self._stand_silent()])

    def _stand_silent(self) -> list[Event]:
        """C-1.7: whoever did not answer the gathering leaves the table (classic); in
        shaha36 he only sits this hand out (S-1.6)."""
        if not self.manners.stand_idle:
            return []
        events: list[Event] = []
        for member in self.members():
            if member.answer is None:
                events += self._stand(member, "idle")
        return events

    # --- the hand -----------------------------------------------------------------------
    def _start_hand(self) -> list[Event]:
        self.money.update(
            self.store.money(self.id, [m.name for m in self.members()], self.manners.stacks)
        )
        players = self._ready()
        practice = self.variant.rules.get("practice")  # B-1.4: chips, not money
        busy = (
            {}
            if practice
            else self.store.elsewhere(self.id, {m.name: m.person.id for m in players})
        )
        if busy:  # a hand started elsewhere since his «Готов»: he sits this one out
            log.info("table %s: money in play elsewhere: %s", self.id, sorted(busy))
            players = [m for m in players if m.person.id not in busy]
        if len(players) < 2:
            return []
        seats = [Seat(m.name, self.money[m.name]) for m in players]
        dealer = self._dealer_of([s.name for s in seats])
        assert dealer is not None
        dark = None
        if self.dark is not None and self.dark.dealer == dealer:
            candidate = self.hand_cls.dark_candidate(self.variant, seats, dealer)
            dark = self.dark.name if candidate == self.dark.name else None
        if self.dark is not None and dark is None:
            log.info(
                "table %s: the dark of %s is an ordinary «Готов» (C-1.6)", self.id, self.dark.name
            )
        deck = SCORERS[self.game].deck
        hand = self.hand_cls(self.variant, seats, dealer, shuffled_deals(deck), dark)
        try:
            self.hand_id = self.store.begin_hand(
                self.id, record(hand, []), hand.transfers, self.manners.stacks
            )
        except LedgerError as short:  # a balance spent at another table since it was read
            log.info("table %s: the new hand was refused: %s", self.id, short)
            raise TableError("money", "a player's money moved; the hand did not start") from None
        except Exception:  # locked or full (issue 10): nothing of the hand was kept
            log.exception("table %s: could not save the new hand", self.id)
            raise TableError("server", "the hand could not be started; try again") from None
        self.hand, self.actions, self.turn, self.settled = hand, [], None, False
        self.gathering, self.gather_deadline, self.dark = False, None, None
        self.scheduler.cancel((self.id, "gather"))
        for member in self.members():
            member.answer = None
        events = [self._event("hand_started", None, hand=self.hand_id), *hand.events]
        return events + self._advance()

    def act(self, person: Person, version: int, action: Action) -> None:
        """A player's decision in the hand, answering the state of `version`."""
        with self.lock:
            if version != self.version:
                raise TableError(
                    "stale",
                    f"that answers version {version}; the table is at {self.version}",
                    self.state_for(person.name, []),
                )
            self._seated(person)
            if not self.in_hand(person.name):
                raise TableError("not_now", "you are not playing in a hand now")
            hand = self.hand
            assert hand is not None
            if person.name not in hand.awaiting() and not hand.legal(person.name):
                raise TableError("not_your_turn", "it is not your turn")
            if action.do in DECLARED:  # a timer ran out, a proposer dropped (C-5.3)
                raise TableError("illegal", f"a {action.do} is the server's to declare")
            try:
                events = self._apply(action)
            except RuleError as refused:
                raise TableError("illegal", refused.message) from None
            self._changed(events + self._advance())

    def _apply(self, action: Action) -> list[Event]:
        """Feed the engine one action and commit it with its payments (C-0.3)."""
        hand = self.hand
        assert hand is not None and self.hand_id is not None
        paid = len(hand.transfers)
        events = hand.act(action)
        self.actions.append(action)
        try:
            self.store.record(
                self.hand_id,
                record(hand, self.actions),
                hand.transfers[paid:],
                self.manners.stacks,
                hand.finished,
            )
        except Exception as failure:
            short = isinstance(failure, LedgerError)  # the balance moved since the hand began
            if short:
                log.info("table %s: %s refused: %s", self.id, action, failure)
            else:
                log.exception(
                    "table %s: could not save %s; back to the saved hand", self.id, action
                )
            # Not typed (next line): a hand in play has its stored row.
            self.hand, self.actions = replay_record(self.store.hand_doc(self.hand_id))  # type: ignore[arg-type]
            if short:
                raise TableError("money", "your balance no longer covers that") from None
            raise TableError("server", "the action could not be saved; try again") from None
        return events

    def _advance(self) -> list[Event]:
        """Play the turns of players who left (S-1.7: a fold), then end or time the hand."""
        events: list[Event] = []
        hand = self.hand
        while hand is not None and not hand.finished:
            gone = [p for p in hand.awaiting() if (m := self.member(p)) is not None and m.leaving]
            if not gone:
                break
            p = gone[0]
            fold = Action(p, "fold")
            events += self._apply(
                fold if any(o.allows(fold) for o in hand.legal(p)) else Action(p, "timeout")
            )
        if hand is not None and hand.finished and not self.settled:
            events += self._hand_over()
        elif hand is not None and not hand.finished:
            self._arm_turn()
        return events

    def _arm_turn(self) -> None:
        """A new deadline when the awaited players or the phase change; the same one while
        several decide at once, on a look that keeps the turn (B-4.3) and in a vote (C-5.3)."""
        hand = self.hand
        assert hand is not None
        awaiting = frozenset(hand.awaiting())
        phase = hand.phase
        prev = self.turn
        keep = prev is not None and (
            (phase == prev.phase and awaiting <= prev.awaiting)
            or bool({phase, prev.phase} & self.manners.phase_keeps_turn)
        )
        if keep:
            assert prev is not None
            deadline = prev.deadline
        else:
            param = self.manners.phase_seconds.get(phase, "turn_seconds")
            seconds = self.variant.rules.get(param, self.variant["turn_seconds"])
            deadline = self.scheduler.deadline_in(seconds)
        self._tokens += 1
        token = self._tokens
        self.turn = Turn(awaiting, phase, deadline, token)
        self.scheduler.set((self.id, "turn"), deadline, lambda: self._turn_expired(token))

    def _turn_expired(self, token: int) -> None:
        """C-4.12 and the like: the engine plays the automatic action of each awaited player."""
        with self.lock:
            hand = self.hand
            if self.turn is None or self.turn.token != token or hand is None or hand.finished:
                return
            events: list[Event] = []
            for p in hand.awaiting():
                if hand.finished or p not in hand.awaiting():
                    continue
                try:
                    events += self._apply(Action(p, "timeout"))
                except (RuleError, TableError):
                    log.exception("table %s: the timeout of %s was refused", self.id, p)
                    continue
                member = self.member(p)
                if member is not None and self.manners.stand_idle:
                    member.idle = True  # C-1.7's Decision: stood up when the hand ends
            if not events:  # nothing could be applied: a fresh period, not a busy loop
                self.turn = None
            self._changed(events + self._advance())

    def _hand_over(self) -> list[Event]:
        """The hand ended: money, the next dealer, stand-ups, the queue, the next gathering."""
        hand = self.hand
        assert hand is not None
        self.turn, self.settled, self.notice = None, True, None
        self.scheduler.cancel((self.id, "turn"))
        self.money.update(
            self.store.money(self.id, [m.name for m in self.members()], self.manners.stacks)
        )
        if hand.next_dealer is not None and self.member(hand.next_dealer) is not None:
            self.dealer_seat = self._seat_of(hand.next_dealer)
        events = [self._event("hand_over", None, hand=self.hand_id)]
        for member in self.members():
            if member.leaving or member.idle:
                member.leaving = False
                events += self._stand(member, "idle" if member.idle else "left")
        events += self._seat_from_queue()
        if self.manners.gather_after_hand and len(self.members()) >= 2:
            events.append(self._open_gathering())  # S-1.6: «Новая раздача»
        return events

    # --- recovery (C-8.5) ---------------------------------------------------------------
    def resume(
        self, hand_id: int, hand: Hand, actions: list[Action], people: dict[str, int]
    ) -> None:
        """A hand replayed after a restart: its players seated again, every timer given a
        full period and the players told why (issue 5.9)."""
        with self.lock:
            for i, seat in enumerate(hand.seats):
                self.seats[i] = Member(Person(people[seat.name], seat.name), i)
                self._arm_offline(seat.name)  # nobody is connected yet
            self.money.update(
                self.store.money(self.id, [s.name for s in hand.seats], self.manners.stacks)
            )
            self.hand, self.hand_id, self.actions = hand, hand_id, actions
            self.settled = False
            self.dealer_seat = self._seat_of(hand.dealer)
            self.notice = "the server restarted; the hand goes on and every timer starts again"
            self._changed([self._event("resumed", None, why=self.notice), *self._advance()])

    def set_rules(self, rules: Mapping[str, Any]) -> bool:
        """Change some of the table's rules between hands (S-8.2: a bot seated switches the
        rake off), kept with the table so a restart loads them too. False, and nothing
        changed, while a hand is in play: a hand keeps the rules it began with. The next
        state shows the new rules."""
        with self.lock:
            if self.phase == PLAYING:
                return False
            self.variant = self.variant.with_rules(rules)
            self.store.set_rules(self.id, rules)
            return True

    # --- the administrator (app/admin/live.py) -----------------------------------------
    def show_balance(self, person: Person, amount: int) -> bool:
        """An admin's grant (C-0.1): between hands, the money of a player who plays from his
        balance shows anew; a hand in play keeps the stakes it began with (C-0.2)."""
        with self.lock:
            if self.manners.stacks or self.member(person.name) is None or self.in_hand(person.name):
                return False
            self.money[person.name] = amount
            self._changed([])
            return True

    def close(self, reason: str, close_in_db: Callable[[], Any]) -> Any:
        """The table ends (an admin's close; the registry has dropped it): every timer stops,
        `close_in_db` cancels the hand in play with its refunds and returns the stacks (C-8.5,
        S-1.5), the seats and the queue empty, and every watcher hears `table:closed`.
        Returns what `close_in_db` returned."""
        with self.lock:
            self.turn, self.gathering = None, False  # a timer already due does nothing now
            self.scheduler.cancel((self.id, "turn"))
            self.scheduler.cancel((self.id, "gather"))
            for member in self.members():
                self.scheduler.cancel((self.id, "offline", member.name))
            result = close_in_db()
            if self.hand_id is not None:  # cancelled by `close_in_db`: no money in play here
                self.store.forget(self.hand_id)
            self.hand, self.hand_id = None, None
            self.seats = [None] * len(self.seats)
            self.queue.clear()
            self.version += 1  # an action still in flight is refused as stale
            for sid in list(self.watchers):
                self._send(sid, CLOSED, {"table": self.id, "reason": reason})
                self._detach(sid)
            return result

    # --- chat (C-8.4, S-1.7) ------------------------------------------------------------
    def say(self, sid: str, text: str | None, phrase: int | None) -> None:
        with self.lock:
            person = self.watchers.get(sid)
            if person is None:
                raise TableError("not_joined", "join the table first")
            if self.phase == PLAYING and not self.manners.chat_in_hand:
                raise TableError("not_now", "the chat opens between hands (S-1.7)")
            try:
                line = (
                    self.chat.phrase(person.name, phrase)
                    if phrase is not None
                    else self.chat.say(person.name, text or "")
                )
            except ChatRefused as refused:
                raise TableError("chat", str(refused)) from None
            payload = {"table": self.id, **line.as_json()}
            for watcher in list(self.watchers):
                self._send(watcher, "table:chat", payload)

    # --- what each viewer gets ----------------------------------------------------------
    def _event(self, kind: str, player: str | None, **data: Any) -> Event:
        return Event(kind, player, data)

    def _changed(self, events: list[Event], skip: str | None = None) -> None:
        """A new version: every watcher gets his own state with the news he may see. What
        every viewer is told alike is built once, and only his own parts per viewer."""
        self.version += 1
        self.news.append((self.version, events))
        if self.occupancy() != self._occupancy:
            self._occupancy = self.occupancy()
            self.services.seats_changed(self.id)
        told = self._told()
        states: dict[str, dict[str, Any]] = {}
        for sid, person in list(self.watchers.items()):
            if sid == skip:
                continue
            if person.name not in states:
                states[person.name] = self._state(told, person.name, events)
            self._send(sid, "table:state", states[person.name])

    def state_for(self, name: str | None, events: list[Event]) -> dict[str, Any]:
        """Exactly what `name` may know (docs/protocol.md, «table:state»)."""
        return self._state(self._told(), name, events)

    def _told(self) -> Told:
        """The parts of this version's state that are the same for every viewer."""
        queued = [p.name for p, _ in self.queue]
        # A bot is a watcher served in-process (`join` with a listener, app/bots/).
        bots = {p.name: p for sid, p in self.watchers.items() if sid in self.listeners}
        history = [a.as_json() for a in self.actions]
        head = {  # the page draws the table from the state alone (docs/protocol.md)
            "table": self.id,
            "version": self.version,
            "now": time.time(),
            "info": {
                "name": self.name,
                "variant": self.variant.name,
                "game": self.game,
                "seats": len(self.seats),
                "ante": self.variant["ante"],
                "stacks": self.manners.stacks,
                "turn_seconds": self.variant["turn_seconds"],
                "rules": dict(self.variant.rules),  # every parameter (levels, dark_fee, …)
            },
            "phase": self.phase,
            # Between hands, who would deal if the hand started now (C-2.3, C-1.5).
            "next_dealer": None if self.phase == PLAYING else self._presumed()[1],
            "notice": self.notice,
            "seats": [
                None
                if m is None
                else {
                    "seat": m.seat,
                    "name": m.name,
                    "money": self.money.get(m.name, 0),
                    "connected": self.connected(m.name),
                    "answer": m.answer,
                    "leaving": m.leaving,
                    "bot": m.name in bots,
                    "avatar": bots[m.name].avatar if m.name in bots else None,
                }
                for m in self.seats
            ],
            "queue": queued,
        }
        return Told(
            head=head,
            gathering={"deadline": self.gather_deadline, "extended": self.extended}
            if self.gathering
            else None,
            tail={
                "turn": None
                if self.turn is None
                else {"awaiting": sorted(self.turn.awaiting), "deadline": self.turn.deadline},
                "last": history[-3:],
                "history": history,
            },
        )

    def _state(self, told: Told, name: str | None, events: list[Event]) -> dict[str, Any]:
        """`name`'s state: what everyone is told, with his `you`, his view of the hand and
        the news he may see, in the order docs/protocol.md lists the fields."""
        member = self.member(name) if name else None
        queued: list[str] = told.head["queue"]
        return {
            **told.head,
            "you": {
                "name": name,
                "seat": member.seat if member else None,
                "queue": queued.index(name) + 1 if name in queued else None,
                "can": self._can(member, name in queued),
            },
            "gathering": told.gathering,
            "hand": self._hand_seen(told, name),
            **told.tail,
            "news": [e.as_json() for e in events if e.visible_to(name)],
        }

    def _hand_seen(self, told: Told, name: str | None) -> dict[str, Any] | None:
        """The hand as `name` sees it: a participant his own `view(name)`, anyone else the
        public view, which is made once per version and shared."""
        hand = self.hand
        if hand is None:
            return None
        if name is not None and any(s.name == name for s in hand.seats):
            return {"id": self.hand_id, **hand.view(name)}
        if told.public_hand is None:
            told.public_hand = {"id": self.hand_id, **hand.view(None)}
        return told.public_hand

    def _can(self, member: Member | None, queued: bool) -> list[str]:
        """The table-level buttons open to the viewer (the hand's are in `hand.legal`)."""
        if member is None:
            return ["stand"] if queued else ["sit"]
        can = ["stand"]
        if self.phase != PLAYING and member.answer is None:
            can += [READY, SKIP]
            try:
                self._dark_choice(member)
                can.append(DARK)
            except TableError:
                pass
        return can
