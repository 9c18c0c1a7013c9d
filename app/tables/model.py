"""The words every part of a live table shares (runtime.py and its parts): who is at the
table, the phases, the turn timer and the refusal every part raises (how a game runs
between hands is its `Manners`, in the engine's game record: app/engine/games.py). Nothing here
imports another module of app/tables/, so every part may import it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

READY, SKIP, DARK = "ready", "skip", "dark"
CLOSED = "table:closed"  # to the watchers of a table the administrator closed
WAITING, GATHERING, PLAYING = "waiting", "gathering", "playing"


class TableError(Exception):
    """A request the table refuses; nothing changed. `code` is for programs, `reason` for
    people (docs/protocol.md lists the codes); `fields` are more fields of the refusal for
    the page (a `money` refusal's `need` and `short`, so it can say how much is missing)."""

    def __init__(
        self,
        code: str,
        reason: str,
        state: dict[str, Any] | None = None,
        fields: dict[str, Any] | None = None,
    ):
        super().__init__(reason)
        self.code, self.reason, self.state = code, reason, state
        self.fields = fields or {}

    def ack(self) -> dict[str, Any]:
        """The refusal as an event's ack (docs/protocol.md, «Table»)."""
        return {"ok": False, "error": self.reason, "code": self.code, **self.fields}


@dataclass(frozen=True)
class Person:
    """A user at the table: his account id and his name (the engine's player name); a bot
    (app/bots/) also brings its avatar, which the seats show (docs/protocol.md)."""

    id: int
    name: str
    avatar: str | None = None


@dataclass
class Member:
    """A seated player. `idle` and `leaving` stand him up when the hand ends (C-1.7's
    Decision, S-1.7), `why` the reason he will be told (docs/protocol.md, `stood`) and
    `stood_by` the host who stood him up; only `Seating` sets them (his answer to the
    gathering is the gathering's: gathering.py)."""

    person: Person
    seat: int
    idle: bool = False
    leaving: bool = False
    why: str = "left"
    stood_by: str | None = None  # the host who stood him up during the hand

    @property
    def name(self) -> str:
        return self.person.name


@dataclass
class Turn:
    """The running hand timer: whom it waits for, in which phase, until when; whose own
    timer it is (`owners`: the engine's `timer_owners`, C-1.7, C-5.3), the phase of the turn
    it runs in (`base`: a vote runs in the betting turn it interrupted) and how many deals the
    hand had drawn when it was armed (a new deal is a new turn)."""

    awaiting: frozenset[str]
    phase: str
    deadline: float
    token: int
    owners: frozenset[str]
    base: str | None
    deals: int
