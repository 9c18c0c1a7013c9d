"""One live table: the owner of its lock, its version and its publishing (architecture.md,
docs/architecture.md).

A `LiveTable` takes its lock for every operation, so requests are applied one at a time,
and delegates to its parts, each owning its state behind methods and none importing the
owner: `Seating` (seats, queue, money, who leaves after the hand; seating.py), `Gathering`
(answers, the gathering timer, the dealer; gathering.py — it says when a hand should start,
the owner starts it), `Play` (the hand, its actions and turn timer, its end and resumption;
play.py), `Watchers` (sockets, listeners, the offline timer) and `News` (watchers.py) and
the viewer projection (view.py, a pure function of a `Snapshot`). What crosses parts —
standing up a player who plays in the hand, the end of a hand, a timer's expiry — is
decided here. Each change bumps `version` and sends every watcher his own state.

Readers outside (the bots, the voice chat, the admin) get a `snapshot()` — copies made
under the lock, the hand as views — or a method, never the lock nor a live object; the
features that follow every table subscribe to its `Hooks` (a seat freed, the table
closed) and the voice chat's marks are read into each snapshot. No hook waits for I/O:
they run under the lock (the voice chat queues its SFU requests, app/voice/hub.py). What
the table sends — every watcher's events, the lobby's occupancy — is posted to its outbox
and sent in order after the lock (`Turn`, outbox.py).

Why one file of public operations: each takes the lock, may cross parts, and ends in one
`_changed`; split over files, one table's order of events would be read in several places.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.chat import Chat, ChatRefused
from app.engine import games
from app.engine.fairness import FairnessError, check_seed
from app.engine.hand import Action, Event, Hand
from app.engine.variants import Variant

from .chair import SWITCHES, Chair, host_event
from .gathering import EXTEND, START, Gathering
from .model import CLOSED, GATHERING, PLAYING, SKIP, WAITING, Member, Person, TableError
from .outbox import Turn
from .play import Play
from .scheduler import Scheduler
from .seating import Seating, refuse_elsewhere
from .store import TableStore
from .view import Snapshot, state, told
from .watchers import HostLog, Listener, News, Watched, Watchers

log = logging.getLogger(__name__)
RESTARTED = "the server restarted; the hand goes on and every timer starts again"


def no_voice(table: int) -> Mapping[str, Mapping[str, bool]]:
    """`Hooks.voice` while no voice chat runs (the admin CLI, voice off): nobody is in it."""
    return {}


@dataclass
class Hooks:
    """What the features beside the tables follow of every table of the process (the voice
    chat, app/voice/sockets.py; the bots). `seat_freed(table, name)` is called by the owner
    under the table's lock whenever a seat empties, for any reason, before the change's
    state is sent; `closed(table)` by the registry once a table closed for good. `voice` is
    read into every snapshot: each voice member's `{"in", "mic", "listen"}`, kept by the
    voice chat, which calls `LiveTable.voice_changed` when they change."""

    seat_freed: list[Callable[[int, str], None]] = field(default_factory=list)
    closed: list[Callable[[int], None]] = field(default_factory=list)
    voice: Callable[[int], Mapping[str, Mapping[str, bool]]] = no_voice
    #: `muted(table, name, on)`: the host muted (or gave back) his microphone here (chair.py);
    #: the voice chat holds it off at the SFU. Under the table's lock: it never waits.
    muted: list[Callable[[int, str, bool], None]] = field(default_factory=list)


@dataclass
class Services:
    """What every table of the process shares."""

    store: TableStore
    scheduler: Scheduler
    emit: Callable[..., None]  # emit(event, data, to=sid): app/rooms.py `sender`
    chat: Callable[[int], Chat]  # a table's chat, kept in the database (C-8.4)
    seats_changed: Callable[[int], None]  # the registry's: occupancy stored, the lobby told
    hooks: Hooks = field(default_factory=Hooks)
    watched: Watched = field(default_factory=Watched)  # which tables each socket watches


class LiveTable:
    """The authoritative state of one table in this process."""

    def __init__(self, table_id: int, name: str, variant: Variant, services: Services):
        self.id, self.name, self.variant = table_id, name, variant
        self.game = variant.game
        self.manners = games.game(self.game).manners
        self.hand_cls = games.hand_class(self.game)
        self.services = services
        self.scheduler = services.scheduler
        self.turn = Turn(table_id)  # the lock, and what is sent after it (outbox.py)
        # Versions only grow, across restarts too (a client's old number is never current).
        self.version = int(time.time() * 1000)
        self.chat = services.chat(table_id)
        books = services.store.books(table_id, self.manners.stacks)
        self.books = books
        self.seating = Seating(variant["seats"], books)
        self.gathering = Gathering(
            table_id,
            self.seating,
            self.hand_cls,
            variant,
            self.manners,
            self.scheduler,
            self._gathering_expired,
        )
        self.play = Play(table_id, books, self.scheduler, self.manners, self._turn_expired)
        self.watching = Watchers(
            table_id,
            services.emit,
            self.turn.post,
            self.scheduler,
            self._offline_expired,
            services.watched,
        )
        self.news = News()
        self.host_log = HostLog(self.chat.keep)  # as deep as the chat it is written into
        self.chair = Chair()  # the host's pause, lock, rules and mutes (chair.py)
        self._occupancy = self.occupancy()

    # --- reading (no lock: a read of the current state) ---------------------------------
    def member(self, name: str) -> Member | None:
        return self.seating.member(name)

    def queued(self, name: str) -> bool:
        return self.seating.queued(name)

    def occupancy(self) -> tuple[int, int]:
        """Seats taken and queue length, as the lobby lists them (C-1.2)."""
        return self.seating.occupancy()

    def seated_ids(self) -> frozenset[int]:
        """Who holds a seat here (user ids), read without the lock as `occupancy` is: the
        bots' books ask it of every live table when one bot leaves, and a whole snapshot of
        each (its views, its lock) grew with the tables."""
        return frozenset(m.person.id for m in self.seating.members())

    @property
    def practice(self) -> bool:
        """B-1.4: a practice table plays chips, not money."""
        return bool(self.variant.rules.get("practice"))

    @property
    def phase(self) -> str:
        if self.play.playing:
            return PLAYING
        return GATHERING if self.gathering.open else WAITING

    def audience(self, name: str | None) -> list[str]:
        """The sockets watching as `name`, or (None) as any seated player: the voice
        chat's (app/voice/sockets.py). Without the lock, from a copy, as a reader outside
        the table's turn may read (the voice's own task calls it)."""
        return [
            sid
            for sid, person in self.watching.items()
            if person.name == name or (name is None and self.member(person.name))
        ]

    def snapshot(self, viewers: Iterable[str | None] = ()) -> Snapshot:
        """Everything a state is made of, copied at this version; the hand as `viewers`
        see it (a snapshot without viewers holds no view of the hand)."""
        with self.turn:
            gathering = self.gathering
            between = not self.play.playing
            candidate, dealer = gathering.dark_candidate() if between else (None, None)
            seats, queue = self.seating.frozen(gathering.answer_of)
            views, players = self.play.views(viewers)
            return Snapshot(
                table=self.id,
                version=self.version,
                name=self.name,
                variant=self.variant,
                stacks=self.manners.stacks,
                hand_cls=self.hand_cls,
                phase=self.phase,
                notice=self.play.notice,
                seats=seats,
                queue=queue,
                money=self.seating.money(),
                gone=self.seating.gone(),
                connected=frozenset(p.name for _, p in self.watching.items()),
                bots=self.watching.bots(),
                next_dealer=dealer,
                dark_candidate=candidate,
                gathering=(gathering.deadline, gathering.extended) if gathering.open else None,
                turn=self.play.turn,
                actions=tuple(self.play.actions),
                views=views,
                players=players,
                fair=self.play.fair(gathering.fairness.next.commit),
                hand_id=self.play.hand_id,
                host=self.chair.frozen(),
                voice=dict(self.services.hooks.voice(self.id)),
                now=time.time(),
            )

    def state_for(self, name: str | None, events: list[Event]) -> dict[str, Any]:
        """Exactly what `name` may know (docs/protocol.md, «table:state»)."""
        snap = self.snapshot([name])
        return state(told(snap), snap, name, events)

    # --- watching: join, leave, connection ----------------------------------------------
    def join(
        self,
        sid: str,
        person: Person,
        since: int | None,
        listener: Listener | None = None,
        sit: bool = False,
    ) -> dict[str, Any]:
        """A socket watches the table: the current state, the chat, and what it missed;
        with `sit`, the player enters it and the answer says how that went (C-1.2: a free
        seat, or the queue at a full table; a returning player keeps his seat or place;
        refused — too little money, money in play elsewhere — he watches, and the answer
        says why).

        With a `listener`, `sid` names a watcher inside this process (a bot, app/bots/):
        every event for it (its own `table:state`, chat, `table:closed`) is handed to the
        listener instead of Socket.IO, until it leaves or the table closes."""
        with self.turn:
            if self.watching.add(sid, person, listener, self.member(person.name) is not None):
                self._changed([Event("online", person.name)], skip=sid)
            entered: dict[str, Any] = {}
            if sit:
                entered = {"sit": {"ok": True}}
                if self.member(person.name) is None and not self.queued(person.name):
                    try:
                        self.sit(person, None, None)
                    except TableError as refused:
                        entered = {"sit": refused.ack()}
            return {
                "state": self.state_for(person.name, []),
                "chat": self.chat.recent(),
                "log": self.host_log.lines(),
                "missed": self.news.missed(since, self.version, person.name),
                **entered,
            }

    def follow(self, sid: str, person: Person) -> None:
        """A seated or queued player's new socket watches the table at once (C-8.1, C-8.2)."""
        with self.turn:
            # Still online through the old socket (its disconnect is told late on purpose,
            # app/auth/sockets.py): moving to the new one is no news for the watchers.
            online = self.watching.connected(person.name)
            for old in self.watching.sids(person.name):
                self.watching.remove(old)
            seated = self.member(person.name) is not None
            if self.watching.add(sid, person, None, seated) and not online:
                self._changed([Event("online", person.name)])
            else:
                self.watching.send(sid, "table:state", self.state_for(person.name, []))

    def leave(self, sid: str) -> None:
        """A socket stops watching (page closed, disconnected, taken over). A seated player
        left with no socket is offline (S-1.7), and a vote he is in is cancelled (C-5.3)."""
        with self.turn:
            person = self.watching.remove(sid)
            if person is None or self.watching.connected(person.name):
                return
            if self.member(person.name) is None:
                return
            if self.manners.stand_offline and not self.chair.paused:  # no timer while paused
                self.watching.arm_offline(person.name, self.variant["offline_seconds"])
            events = self.play.dropped(person.name)
            if events:
                with contextlib.suppress(TableError):  # not saved: the turn timer ends it
                    events += self._advance()
            self._changed([Event("offline", person.name), *events])

    def _offline_expired(self, name: str) -> None:
        with self.turn:
            member = self.member(name)
            if member is None or self.watching.connected(name):
                return
            self._changed(self._stand([member], "offline"))

    # --- seats and queue (C-1.2, S-1.5) -------------------------------------------------
    def sit(self, person: Person, seat: int | None, stack: int | None, wait: bool = True) -> bool:
        """Sit down, or queue when the table is full (C-1.2); without `wait`, a full or
        locked table queues nobody and says False (the bots, app/bots/)."""
        with self.turn:
            if not wait and (self.seating.free_seat(None) is None or self.chair.locked):
                return False
            if self.member(person.name) is not None:
                raise TableError("not_now", "you are already seated")
            if self.queued(person.name):
                raise TableError("not_now", "you are already in the queue")
            self.seating.check_elsewhere(person, self.practice)
            stack = self.seating.check_money(person, stack, self.variant)
            free = self.seating.free_seat(seat)
            if free is None or self.chair.locked:  # the host locked the seats: he waits
                self._changed([self.seating.enqueue(person, stack)])
            else:
                self._changed([self.seating.place(person, free, stack)])
            return True

    def _stand(self, members: list[Member], why: str, by: str | None = None) -> list[Event]:
        """Free their seats now, or after the hand for those who play in it (S-1.7); `by`:
        the host who stood them up (why "host")."""
        events: list[Event] = []
        told = {"by": by} if by else {}
        for member in members:
            if self.play.in_hand(member.name):
                self.seating.leaves_after_hand(member, why, by)
                events += [Event("leaving", member.name, {"why": why, **told}), *self._advance()]
                continue
            events.append(self.seating.free(member, why, by))
            self.gathering.forget(member.name)
            for hook in self.services.hooks.seat_freed:
                hook(self.id, member.name)
            if not self.chair.locked:  # a locked table's queue waits for the host
                events += self.seating.seat_from_queue()
        return events

    def stand(self, person: Person, why: str = "left", by: str | None = None) -> None:
        """He stands up («Выйти»), or is stood up (`why`, e.g. "admin": app/admin/live.py;
        "host": the host `by`)."""
        with self.turn:
            dequeued = self.seating.dequeue(person.name)
            if dequeued is not None:
                return self._changed([dequeued])
            events = self._stand([self.seating.seated(person)], why, by)
            if not self.play.playing and self.gathering.complete():
                with contextlib.suppress(TableError):  # not now: the gathering timer retries
                    events += self._start_hand()
            self._changed(events)

    # --- between hands: ready, skip, dark (C-1.3 … C-1.6, S-1.6, B-4.1) -----------------
    def answer(self, person: Person, kind: str, seed: str | None = None) -> None:
        """«Готов», «Пропустить», «Темнить»: with the page's shuffle seed for the coming
        hand, if it sends one (docs/fairness.md). C-1.3's Decision: the hand starts at once
        when every seated player has answered, two or more ready."""
        with self.turn:
            if seed is not None:
                try:
                    check_seed(seed)
                except FairnessError as e:
                    raise TableError("bad_request", str(e)) from None
            if self.phase == PLAYING:
                raise TableError("not_now", "a hand is in play; answer when it ends")
            if self.chair.paused:
                raise TableError("paused", "the host paused the table: the next hand waits")
            member = self.seating.seated(person)
            before, opens = self.gathering.saved(), not self.gathering.open
            # The answer that opens the gathering reads everybody's money, for `broke`
            # below, in the same read as his own (docs/performance.md).
            readers = self.seating.members() if opens else [member]
            elsewhere = self.seating.standing(readers, self.practice)
            self.gathering.check(member, kind)
            if kind != SKIP:
                refuse_elsewhere(elsewhere.get(person.id))
            events = self.gathering.answer(member, kind, seed)
            broke: list[Event] = []
            if opens and self.gathering.open:
                bots = self.watching.bots()
                broke = self._stand(self.seating.broke(self.hand_cls, self.variant, bots), "money")
            events += broke
            try:
                if self.gathering.complete():
                    events += self._start_hand()
            except TableError:  # the database refused the hand: the answer is refused too
                self.gathering.restore(before, member.name)  # his seed stays the first
                if broke:  # they left all the same
                    self._changed(broke)
                raise
            self._changed(events)

    def _gathering_expired(self) -> None:
        with self.turn:
            if not self.gathering.open:
                return
            events: list[Event] = []
            step = self.gathering.due()
            if step == START:
                events = self._stand(self.gathering.silent(), "idle")  # C-1.7 (classic)
                try:
                    events += self._start_hand()
                except TableError:  # the database refused the hand: another period, then again
                    return self._changed([*events, self.gathering.extend()])
                if self.play.playing:
                    return self._changed(events)
            elif step == EXTEND:  # C-1.3: one more period
                return self._changed([self.gathering.extend()])
            lapsed = self.gathering.lapse()
            self._changed([*events, lapsed, *self._stand(self.gathering.silent(), "idle")])

    # --- the hand -----------------------------------------------------------------------
    def _start_hand(self) -> list[Event]:
        elsewhere = self.seating.standing(self.seating.members(), self.practice)
        busy = {m.person.id for m in self.gathering.ready()} & elsewhere.keys()
        if busy:  # a hand started elsewhere since his «Готов»: he sits this one out
            log.info("table %s: money in play elsewhere: %s", self.id, sorted(busy))
        lineup = self.gathering.lineup(busy, self.watching.bots())
        if lineup is None:
            return []
        dark = self.gathering.dark
        if dark is not None and lineup.dark is None:
            log.info("table %s: the dark of %s is an ordinary «Готов» (C-1.6)", self.id, dark.name)
        events = self.play.start(lineup, self.hand_cls, self.variant)
        self.gathering.started()
        return events + self._advance()

    def act(self, person: Person, version: int, action: Action) -> None:
        """A player's decision in the hand, answering the state of `version`."""
        with self.turn:
            if version != self.version:
                raise TableError(
                    "stale",
                    f"that answers version {version}; the table is at {self.version}",
                    self.state_for(person.name, []),
                )
            self.seating.seated(person)
            self._changed(self.play.act(person.name, action) + self._advance())

    def _advance(self) -> list[Event]:
        """Play the turns of players who left (S-1.7), then end or time the hand."""
        events, over = self.play.advance(self.seating.leaving)
        return events + self._hand_over() if over else events

    def _turn_expired(self, token: int) -> None:
        """The turn timer ran out: automatic actions (Play.timeout); C-1.7's Decision: a
        player who let his own timer run out is stood up when the hand ends."""
        with self.turn:
            result = self.play.timeout(token)
            if result is None:
                return
            events, timed_out = result
            if self.manners.stand_idle:
                for name in timed_out:
                    self.seating.idle_after_hand(name)
            self._changed(events + self._advance())

    def _hand_over(self) -> list[Event]:
        """The hand ended: money, the next dealer, stand-ups, the queue, the next gathering."""
        hand = self.play.hand
        assert hand is not None
        over = self.play.over()
        self.seating.refresh([m.name for m in self.seating.members()])
        if hand.next_dealer is not None and self.member(hand.next_dealer) is not None:
            self.gathering.deals_next(hand.next_dealer)
        events = [over]
        rules, told = self.chair.take_pending()
        if rules and self.set_rules(rules):  # the host's change: the next hand plays it
            events.append(told)
            self.turn.post(
                lambda: self.services.seats_changed(self.id)
            )  # the lobby lists the new stakes
        for member, why in self.seating.after_hand():
            events += self._stand([member], why, member.stood_by)
        if self.manners.gather_after_hand:
            self.seating.refresh([m.name for m in self.seating.members()])
            events += self._stand(
                self.seating.broke(self.hand_cls, self.variant, self.watching.bots()), "money"
            )
        if not self.chair.locked:
            events += self.seating.seat_from_queue()
        if self.gathering.reopens(self.chair.paused):
            events.append(self.gathering.start_timer())  # S-1.6: «Новая раздача»
        return events

    # --- recovery (C-8.5), rules, the administrator -------------------------------------
    def resume(
        self, hand_id: int, hand: Hand, actions: list[Action], people: dict[str, int]
    ) -> None:
        """A hand replayed after a restart: its players seated again, every timer given a
        full period and the players told why (C-8.5)."""
        with self.turn:
            names = [seat.name for seat in hand.seats]
            self.seating.reseat(Person(people[name], name) for name in names)
            if self.manners.stand_offline:
                for name in names:  # nobody is connected yet
                    self.watching.arm_offline(name, self.variant["offline_seconds"])
            self.seating.refresh(names)
            self.play.resume(hand_id, hand, actions, RESTARTED)
            self.gathering.deals_next(hand.dealer)
            self._changed([Event("resumed", None, {"why": RESTARTED}), *self._advance()])

    def set_rules(self, rules: Mapping[str, Any]) -> bool:
        """Change some of the table's rules between hands (S-8.2: a bot seated switches the
        rake off), kept with the table so a restart loads them too. False, and nothing
        changed, while a hand is in play: a hand keeps the rules it began with. The next
        state shows the new rules."""
        with self.turn:
            if self.phase == PLAYING:
                return False
            self.variant = self.variant.with_rules(rules)
            self.gathering.set_variant(self.variant)
            self.books.set_rules(rules)
            return True

    def show_balance(self, person: Person, amount: int) -> bool:
        """An admin's grant (C-0.1, app/admin/live.py): between hands, the money of a player
        who plays from his balance shows anew; a hand in play keeps the stakes it began
        with (C-0.2)."""
        with self.turn:
            name = person.name
            if self.manners.stacks or self.member(name) is None or self.play.in_hand(name):
                return False
            self.seating.show(name, amount)
            self._changed([])
            return True

    def close(self, reason: str, close_in_db: Callable[[], Any]) -> Any:
        """The table ends (an admin's close; the registry has dropped it): every timer stops,
        `close_in_db` cancels the hand in play with its refunds and returns the stacks (C-8.5,
        S-1.5), the seats and the queue empty, and every watcher hears `table:closed`.
        Returns what `close_in_db` returned."""
        with self.turn:
            self.play.stop()
            self.gathering.stop()
            self.watching.cancel_offline([m.name for m in self.seating.members()])
            result = close_in_db()
            self.play.drop()
            self.seating.clear()
            self.version += 1  # an action still in flight is refused as stale
            for sid, _ in self.watching.items():
                self.watching.send(sid, CLOSED, {"table": self.id, "reason": reason})
                self.watching.remove(sid)
            return result

    # --- the host's controls (chair.py; who hosts: app/lobby/invites.py) -----------------
    def host(
        self, by: Person, do: str, player: str | None = None, rules: Mapping[str, Any] | None = None
    ) -> None:
        """A host's control (docs/protocol.md, «table:host»; the chair's state: chair.py),
        told to every watcher with his name; `bots_fill`/`bots_clear` only tell what the
        bots' service did (app/bots/). A bad argument changes nothing."""
        with self.turn:
            target = None if player is None else self.member(player)
            if do in ("stand", "mute", "unmute") and target is None:
                raise TableError("bad_request", f"nobody named {player!r} is seated here")
            absent = [m.name for m in self.seating.members() if not self.watching.connected(m.name)]
            events: list[Event]
            if do in SWITCHES:
                events = [self.chair.switch(by.name, do)]
                if do == "pause":
                    self.gathering.pause()  # its answers are void: «Готов» again after
                    self.watching.cancel_offline(absent)
                elif do == "resume":
                    if self.manners.stand_offline:
                        for name in absent:
                            self.watching.arm_offline(name, self.variant["offline_seconds"])
                    if self.gathering.reopens(self.chair.paused) and self.phase == WAITING:
                        events.append(self.gathering.start_timer())
                elif do == "unlock":
                    events += self.seating.seat_from_queue()
            elif do == "stand" and target is not None:
                return self.stand(target.person, "host", by.name)  # `stood` names him
            elif do in ("mute", "unmute") and target is not None:
                events = [self.chair.mute(by.name, target.name, do == "mute")]
                for hook in self.services.hooks.muted:
                    hook(self.id, target.name, do == "mute")
            elif do == "rules":
                told, now = self.chair.change(by.name, self.variant, rules or {}, self.play.playing)
                events = [told]
                if now and self.set_rules(now):
                    self.turn.post(
                        lambda: self.services.seats_changed(self.id)
                    )  # the lobby lists the new stakes
            elif do in ("bots_fill", "bots_clear"):
                events = [host_event(by.name, do)]
            else:
                raise TableError("bad_request", f"no host control {do!r}")
            self._changed(events)

    def ask_to_speak(self, person: Person) -> None:
        """A player the host muted asks to speak again: the host sees it (`host.asking`)."""
        with self.turn:
            self.seating.seated(person)
            self._changed([self.chair.ask(person.name)])

    # --- chat (C-8.4, S-1.7), voice (C-8.3) ---------------------------------------------
    def say(self, sid: str, text: str | None, phrase: int | None) -> None:
        with self.turn:
            person = self.watching.person(sid)
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
            self.watching.send_all("table:chat", {"table": self.id, **line.as_json()})

    def voice_changed(self) -> None:
        """Someone's voice marks changed (`Hooks.voice`): a new version shows them."""
        with self.turn:
            self._changed([])

    # --- publishing ---------------------------------------------------------------------
    def _changed(self, events: list[Event], skip: str | None = None) -> None:
        """A new version: every watcher gets his own state with the news he may see. What
        every viewer is told alike is built once, and only his own parts per viewer."""
        self.version += 1
        self.news.add(self.version, events)
        self.host_log.add(events)
        self.seating.remember(events)
        if self.occupancy() != self._occupancy:
            self._occupancy = self.occupancy()
            self.turn.post(lambda: self.services.seats_changed(self.id))
        watchers = self.watching.items()
        snap = self.snapshot({person.name for _, person in watchers})
        common = told(snap)
        states: dict[str, dict[str, Any]] = {}
        for sid, person in watchers:
            if sid == skip:
                continue
            if person.name not in states:
                states[person.name] = state(common, snap, person.name, events)
            self.watching.send(sid, "table:state", states[person.name])
