"""The hand in play at one live table: its start, each action with its payments committed
(C-0.3), the turn timer, the hand's end and its resumption after a restart (C-8.5).

A part of `LiveTable` (runtime.py), called under the table's lock; the only caller of the
engine during play (architecture.md). It knows nothing of seats or the gathering: who left
is asked of the owner (`advance(leaving)`), and the end of a hand is reported (`advance`'s
`over`), not handled here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from app.engine.game import Manners
from app.engine.hand import (
    DECLARED,
    Action,
    Event,
    Hand,
    RuleError,
)
from app.engine.handfile import record, replay_record
from app.ledger import LedgerError
from app.models.db import refused_as_busy

from .fair import fair_view
from .gathering import Lineup
from .model import TableError, Turn
from .scheduler import Scheduler
from .store import Books

log = logging.getLogger(__name__)


class Play:
    """The hand (or the last one, shown until the next starts), its actions and timer."""

    def __init__(
        self,
        table_id: int,
        books: Books,
        scheduler: Scheduler,
        manners: Manners,
        expired: Callable[[int], None],
    ):
        self.table_id, self.key = table_id, (table_id, "turn")
        self.books, self.scheduler, self.manners = books, scheduler, manners
        self._expired = expired  # the owner's turn timer callback, given the timer's token
        self.hand: Hand | None = None
        self.hand_id: int | None = None
        self.actions: list[Action] = []
        self.turn: Turn | None = None
        self.notice: str | None = None  # why the hand in play was interrupted (C-8.5)
        self.settled = True  # the hand's end was handled (`over`)
        self._tokens = 0
        # The views of the hand at one point of it (`views`), made once for every version
        # that shows that point; nobody changes a view once made (view.py shares them).
        # Keyed by the hand, its id and how many actions it has had.
        self._viewed: tuple[tuple[Hand | None, int | None, int], dict[str | None, Any]]
        self._viewed = ((None, None, 0), {})

    @property
    def playing(self) -> bool:
        return self.hand is not None and not self.hand.finished

    def in_hand(self, name: str) -> bool:
        """A participant of the hand in play (his cards and turns are the engine's)."""
        # Not typed (next line): `playing` implies a hand.
        return self.playing and any(s.name == name for s in self.hand.seats)  # type: ignore[union-attr]

    # --- start, actions -----------------------------------------------------------------
    def start(self, lineup: Lineup, hand_cls: type[Hand], variant: Any) -> list[Event]:
        """Deal the hand and keep it with its antes; TableError (nothing kept) if the
        database refuses."""
        hand = hand_cls(variant, lineup.seats, lineup.dealer, lineup.deals, lineup.dark)
        try:
            hand_id = self.books.begin_hand(record(hand, []), hand.transfers)
        except LedgerError as short:  # a balance spent at another table since it was read
            log.info("table %s: the new hand was refused: %s", self.table_id, short)
            raise TableError("money", "a player's money moved; the hand did not start") from None
        except Exception as failure:  # locked or full (docs/performance.md): nothing kept
            log.exception("table %s: could not save the new hand", self.table_id)
            raise TableError(unsaved(failure), "the hand could not be started; try again") from None
        self.hand, self.hand_id, self.actions, self.turn, self.settled = (
            hand,
            hand_id,
            [],
            None,
            False,
        )
        return [Event("hand_started", None, {"hand": hand_id}), *hand.events]

    def act(self, name: str, action: Action) -> list[Event]:
        """`name`'s decision, checked: his turn, an action he may take."""
        if not self.in_hand(name):
            raise TableError("not_now", "you are not playing in a hand now")
        hand = self.hand
        assert hand is not None
        if name not in hand.awaiting() and not hand.legal(name):
            raise TableError("not_your_turn", "it is not your turn")
        if action.do in DECLARED:  # a timer ran out, a proposer dropped (C-5.3)
            raise TableError("illegal", f"a {action.do} is the server's to declare")
        try:
            return self.apply(action)
        except RuleError as refused:
            raise TableError("illegal", refused.message) from None

    def apply(self, action: Action) -> list[Event]:
        """Feed the engine one action and commit it with its payments (C-0.3)."""
        hand = self.hand
        assert hand is not None and self.hand_id is not None
        paid = len(hand.transfers)
        events = hand.act(action)
        self.actions.append(action)
        try:
            self.books.record(
                self.hand_id, record(hand, self.actions), hand.transfers[paid:], hand.finished
            )
        except Exception as failure:
            short = isinstance(failure, LedgerError)  # the balance moved since the hand began
            if short:
                log.info("table %s: %s refused: %s", self.table_id, action, failure)
            else:
                log.exception(
                    "table %s: could not save %s; back to the saved hand", self.table_id, action
                )
            # Not typed (next line): a hand in play has its stored row.
            self.hand, self.actions = replay_record(self.books.hand_doc(self.hand_id))  # type: ignore[arg-type]
            if short:
                raise TableError("money", "your balance no longer covers that") from None
            raise TableError(unsaved(failure), "the action could not be saved; try again") from None
        return events

    def dropped(self, name: str) -> list[Event]:
        """C-5.3: a disconnect cancels a «Варить»/«Делить» vote — a voter who drops refuses,
        a proposer who drops withdraws (`Hand.disconnect_action`); the owner advances the
        hand after it. Not saved, nothing is declared: the vote stays and its timer ends it."""
        hand = self.hand
        action = hand.disconnect_action(name) if hand is not None and not hand.finished else None
        if action is None:
            return []
        try:
            return self.apply(action)
        except TableError:
            return []

    # --- what a snapshot copies ---------------------------------------------------------
    def views(self, viewers: Iterable[str | None]) -> tuple[dict[str | None, Any], frozenset[str]]:
        """The hand as each of `viewers` sees it, copied now (under the table's lock): a
        participant his own `view(name)`, anyone else the public `view(None)`; and the
        participants. Nothing of the live hand leaves the lock."""
        hand = self.hand
        if hand is None:
            return {}, frozenset()
        players = frozenset(s.name for s in hand.seats)
        wanted = {v if v in players else None for v in viewers}
        # The hand changes only by an applied action: until the next one (the «Готов»
        # answers, a viewer coming and going) every version shows the views already made.
        (seen, *at), views = self._viewed
        if seen is not hand or at != [self.hand_id, len(hand.history)]:
            views = {}
            self._viewed = ((hand, self.hand_id, len(hand.history)), views)
        for v in wanted - views.keys():
            views[v] = {"id": self.hand_id, **hand.view(v)}
        return {v: views[v] for v in wanted}, players

    def fair(self, next_commit: str) -> dict[str, Any]:
        """The `fair` object of every viewer's state: it carries no seed, so it is the same
        for a participant and for anyone else (docs/fairness.md)."""
        return fair_view(next_commit, self.hand, self.hand_id)

    def advance(self, leaving: Callable[[str], bool]) -> tuple[list[Event], bool]:
        """Play the turns of players who left (S-1.7: a fold), then time the hand; also
        whether the hand is over and its end still to be handled (the owner's `over`)."""
        events: list[Event] = []
        hand = self.hand
        while hand is not None and not hand.finished:
            # The proposer of a vote is timed too (C-5.3): his fold cancels it.
            deciding = dict.fromkeys((*hand.timer_owners(), *hand.awaiting()))
            gone = [p for p in deciding if leaving(p)]
            if not gone:
                break
            p = gone[0]
            fold = Action(p, "fold")
            # Where a fold is not legal: what leaving declares (a voter refuses, C-5.3),
            # else the automatic action of the phase.
            events += self.apply(
                fold
                if any(o.allows(fold) for o in hand.legal(p))
                else hand.disconnect_action(p) or Action(p, "timeout")
            )
        if hand is not None and hand.finished and not self.settled:
            return events, True
        if hand is not None and not hand.finished:
            self._arm_turn()
        return events, False

    def over(self) -> Event:
        """The hand's end is handled: no timer, no notice."""
        self.turn, self.settled, self.notice = None, True, None
        self.scheduler.cancel(self.key)
        return Event("hand_over", None, {"hand": self.hand_id})

    # --- the turn timer -----------------------------------------------------------------
    def _arm_turn(self) -> None:
        """A full period for every newly timed decision (docs/rules.md, «Timers»); the same
        deadline while several decide at once (C-7.3, S-7.1), on a look that keeps the turn
        (B-4.3), and while a vote runs in the proposer's turn and when his turn goes on after
        it (C-5.2, C-5.3). A new deal, another player's turn, a Svara entry or a dark choice
        after a vote each get their own full timer."""
        hand = self.hand
        assert hand is not None
        awaiting, owners = frozenset(hand.awaiting()), frozenset(hand.timer_owners())
        phase, deals = hand.phase, len(hand.deals)
        keeps = self.manners.phase_keeps_turn
        prev = self.turn
        if prev is None or deals != prev.deals:
            keep = False
        elif phase in keeps or prev.phase in keeps:  # into, inside or out of a vote
            keep = owners == prev.owners and (phase in keeps or phase == prev.base)
        else:
            keep = phase == prev.phase and awaiting <= prev.awaiting
        if prev is not None and keep:
            deadline, base = prev.deadline, prev.base
        else:
            variant = hand.variant
            param = self.manners.phase_seconds.get(phase, "turn_seconds")
            deadline = self.scheduler.deadline_in(variant.rules.get(param, variant["turn_seconds"]))
            base = None if phase in keeps else phase  # a vote armed afresh (C-8.5) has no turn
        self._tokens += 1
        token = self._tokens
        self.turn = Turn(awaiting, phase, deadline, token, owners, base, deals)
        self.scheduler.set(self.key, deadline, lambda: self._expired(token))

    def timeout(self, token: int) -> tuple[list[Event], list[str]] | None:
        """C-4.12 and the like: the engine plays the automatic action of each player whose
        own timer ran out (`Hand.timer_owners`: in a vote, the proposer, C-5.3), all in the
        decision the timer was for. The events and who timed out; None for a stale timer."""
        hand = self.hand
        if self.turn is None or self.turn.token != token or hand is None or hand.finished:
            return None
        events: list[Event] = []
        players = []
        phase, deals = hand.phase, len(hand.deals)
        for p in hand.timer_owners():
            if hand.finished or (hand.phase, len(hand.deals)) != (phase, deals):
                break  # the next decision has a timer of its own
            if p not in hand.timer_owners():
                continue
            try:
                events += self.apply(Action(p, "timeout"))
            except (RuleError, TableError):
                log.exception("table %s: the timeout of %s was refused", self.table_id, p)
                continue
            players.append(p)
        if not events:  # nothing could be applied: a fresh period, not a busy loop
            self.turn = None
        return events, players

    # --- recovery and close -------------------------------------------------------------
    def resume(self, hand_id: int, hand: Hand, actions: list[Action], notice: str) -> None:
        """A hand replayed after a restart goes on (C-8.5); `notice` tells the players why."""
        self.hand, self.hand_id, self.actions = hand, hand_id, actions
        self.settled, self.notice = False, notice

    def stop(self) -> None:
        """The table closes: a timer already due does nothing now."""
        self.turn = None
        self.scheduler.cancel(self.key)

    def drop(self) -> None:
        """The table closed: its hand was cancelled outside the store, which forgets it."""
        if self.hand_id is not None:
            self.books.forget(self.hand_id)
        self.hand, self.hand_id = None, None


def unsaved(failure: BaseException) -> str:
    """The refusal of a write the database did not take: `busy` while another process held
    its lock (nothing changed, it will pass in a moment), else `server` (docs/protocol.md)."""
    return "busy" if refused_as_busy(failure) else "server"
