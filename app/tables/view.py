"""What each viewer of a live table is told: a pure function of a `Snapshot`.

`LiveTable.snapshot` (runtime.py) copies, under the table's lock, everything a state is
made of; `told` builds what every viewer is told alike once per version (docs/
performance.md: not once per watcher) and `state` adds each viewer's own parts: a seated
participant the engine's `view(name)`, everyone else the public `view(None)` — so no
client ever receives a card it may not see (docs/protocol.md, «table:state»). The snapshot
holds no live object of the table: the hand's views were copied under the lock, for the
viewers the snapshot was taken for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from app.engine.hand import Action, Event, Hand
from app.engine.variants import Variant

from .model import DARK, PLAYING, READY, SKIP, Person, Turn


@dataclass(frozen=True)
class Sitter:
    """A seat as a snapshot keeps it."""

    seat: int
    person: Person
    answer: str | None
    leaving: bool

    @property
    def name(self) -> str:
        return self.person.name


@dataclass(frozen=True)
class Snapshot:
    """One table at one version, as every reader outside the table's lock sees it (the
    views, the bots, the voice chat): copies only. `views` is the hand as each viewer the
    snapshot was taken for sees it (a participant by name, anyone else under None), with
    its `id`; `players` the hand's participants; `fair` the `fair` object, the same for
    every viewer: it holds no seed (docs/fairness.md)."""

    table: int
    version: int
    name: str
    variant: Variant
    stacks: bool  # S-1.5
    hand_cls: type[Hand]
    phase: str
    notice: str | None
    seats: tuple[Sitter | None, ...]
    queue: tuple[str, ...]
    money: Mapping[str, int]
    gone: Mapping[str, Mapping[str, Any]]  # why each who lost his seat here lost it
    connected: frozenset[str]
    bots: Mapping[str, str | None]  # watchers served in-process: name → avatar
    next_dealer: str | None  # between hands, who would deal if the hand started now
    dark_candidate: str | None  # between hands, who may play dark (C-1.5, B-4.1)
    gathering: tuple[float | None, bool] | None  # deadline, extended
    turn: Turn | None
    actions: tuple[Action, ...]
    views: Mapping[str | None, Mapping[str, Any]]
    players: frozenset[str]
    fair: Mapping[str, Any]
    hand_id: int | None
    voice: Mapping[str, Mapping[str, bool]]  # each voice member's {"in", "mic", "listen"}
    now: float
    host: Mapping[str, Any]  # the host's chair (chair.py): paused, locked, muted, asking, pending

    def member(self, name: str | None) -> Sitter | None:
        return self._by_name.get(name) if name is not None else None

    @cached_property
    def _by_name(self) -> dict[str, Sitter]:
        """The seated by name: `state` asks for every viewer of the version."""
        return {s.name: s for s in self.seats if s is not None}

    def members(self) -> list[Sitter]:
        return [s for s in self.seats if s is not None]


#: A seat's `voice` for a player who is not in the voice chat and kept no toggle.
NO_VOICE = {"in": False, "mic": True, "listen": True}


@dataclass
class Told:
    """What one version's `table:state` tells every viewer alike. `head` runs from `table`
    to `queue`, with each seat's `voice` null; `voiced` are the same seats with their voice
    marks, for the seated viewers only (C-8.3: the voice is the seated players'); `tail`
    holds `turn`, `last` and `history`."""

    head: dict[str, Any]
    voiced: list[dict[str, Any] | None]
    gathering: dict[str, Any] | None
    tail: dict[str, Any]


def told(snap: Snapshot) -> Told:
    """The parts of this version's state that are the same for every viewer."""
    history = [a.as_json() for a in snap.actions]
    variant = snap.variant
    seats: list[dict[str, Any] | None] = [
        None
        if m is None
        else {
            "seat": m.seat,
            "name": m.name,
            "money": snap.money.get(m.name, 0),
            "connected": m.name in snap.connected,
            "answer": m.answer,
            "leaving": m.leaving,
            "bot": m.name in snap.bots,
            "avatar": snap.bots.get(m.name),
            "voice": None,
        }
        for m in snap.seats
    ]
    head = {  # the page draws the table from the state alone (docs/protocol.md)
        "table": snap.table,
        "version": snap.version,
        "now": snap.now,
        "info": {
            "name": snap.name,
            "variant": variant.name,
            "game": variant.game,
            "seats": len(snap.seats),
            "ante": variant["ante"],
            "stacks": snap.stacks,
            "turn_seconds": variant["turn_seconds"],
            "rules": dict(variant.rules),  # every parameter (levels, dark_fee, …)
        },
        "phase": snap.phase,
        # Between hands, who would deal if the hand started now (C-2.3, C-1.5).
        "next_dealer": snap.next_dealer,
        "notice": snap.notice,
        "seats": seats,
        "queue": list(snap.queue),
        "host": dict(snap.host),
    }
    voiced = [
        None if seat is None else {**seat, "voice": dict(snap.voice.get(seat["name"], NO_VOICE))}
        for seat in seats
    ]
    turn = snap.turn
    return Told(
        head=head,
        voiced=voiced,
        gathering=None
        if snap.gathering is None
        else {"deadline": snap.gathering[0], "extended": snap.gathering[1]},
        tail={
            "turn": None
            if turn is None
            else {"awaiting": sorted(turn.awaiting), "deadline": turn.deadline},
            "last": history[-3:],
            "history": history,
        },
    )


def state(told: Told, snap: Snapshot, name: str | None, events: list[Event]) -> dict[str, Any]:
    """`name`'s state: what everyone is told, with his `you`, his view of the hand and the
    news he may see, in the order docs/protocol.md lists the fields."""
    member = snap.member(name) if name else None
    queued: list[str] = told.head["queue"]
    return {
        **told.head,
        "seats": told.voiced if member else told.head["seats"],
        "you": {
            "name": name,
            "seat": member.seat if member else None,
            "queue": queued.index(name) + 1 if name in queued else None,
            "can": can(snap, member, name in queued),
            # Why he lost his seat here (his last `stood`), until he sits or queues again.
            "stood": None if member or name is None else snap.gone.get(name),
        },
        "gathering": told.gathering,
        "hand": hand_seen(snap, name),
        "fair": dict(snap.fair),
        **told.tail,
        "news": [e.as_json() for e in events if e.visible_to(name)],
    }


def hand_seen(snap: Snapshot, name: str | None) -> Mapping[str, Any] | None:
    """The hand as `name` sees it: a participant his own view, anyone else the public one
    (made once per point of the hand, `Play.views`, and shared). KeyError for a viewer the
    snapshot was not taken for: a state is never made from a view it does not hold."""
    if not snap.players:
        return None
    return snap.views[name if name in snap.players else None]


def can(snap: Snapshot, member: Sitter | None, queued: bool) -> list[str]:
    """The table-level buttons open to the viewer (the hand's are in `hand.legal`)."""
    if member is None:
        return ["stand"] if queued else ["sit"]
    buttons = ["stand"]
    if snap.phase != PLAYING and member.answer is None and not snap.host["paused"]:
        buttons += [READY, SKIP]
        if snap.dark_candidate == member.name:
            buttons.append(DARK)
    return buttons
