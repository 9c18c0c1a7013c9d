"""The table's Socket.IO events (docs/protocol.md, «Table»): checked, then one runtime call.

`app.protocol` has already checked the connection and the payload's fields and types; here
a refusal of the table itself (`TableError`: not seated, not your turn, an illegal or stale
action…) becomes an `error` event with a `code` and a reason, and changes nothing. A stale
action also gets the sender's current `table:state`, so the client can resync and resend.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from flask import request
from flask_socketio import emit

from app import metrics, protocol
from app.auth.presence import Player
from app.engine.hand import Action

from .model import DARK, READY, SKIP, Person, TableError
from .registry import Tables, no_table
from .runtime import LiveTable

STATE = "table:state"
TABLE = {"table": int}
#: Whether a user may see a table (app/lobby/invites.py: private tables); `MayHost` the
#: same shape: whether he holds its host controls (its creator, an administrator).
MayEnter = Callable[[int, int], bool]
#: The host's controls (docs/protocol.md, «table:host»); the bots' are `table:bots`.
HOST_CONTROLS = ("pause", "resume", "lock", "unlock", "stand", "mute", "unmute", "rules")


def _sid() -> str:
    # Not typed (next line): Flask-SocketIO adds `sid` to the request of a socket event.
    return request.sid  # type: ignore[attr-defined]


def _event(
    tables: Tables,
    may_enter: MayEnter,
    name: str,
    run: Callable[[LiveTable, Person, dict[str, Any]], Any],
) -> Callable[[Player, dict[str, Any]], Any]:
    """A handler: find the table (a private one only for those it admits, to the others it
    does not exist), run the request, turn a refusal into an `error`."""

    def handler(player: Player, payload: dict[str, Any]) -> Any:
        try:
            # First as for any table (`elsewhere`, `not_found`), so that the refusal of a
            # private one is exactly the answer for an id that no table has.
            live = tables.get(payload["table"])
            if not may_enter(live.id, player.id):
                raise no_table(live.id)
            return run(live, Person(player.id, player.name), payload)
        except TableError as refused:
            metrics.refused(refused.code)
            if refused.state is not None:
                emit(STATE, refused.state)
            emit(
                protocol.ERROR,
                {
                    "event": name,
                    "reason": refused.reason,
                    "code": refused.code,
                    "table": payload["table"],
                    **refused.fields,
                },
            )
            return refused.ack()

    return handler


def _answer(kind: str) -> Callable[[LiveTable, Person, dict[str, Any]], None]:
    return lambda live, person, payload: live.answer(person, kind, payload.get("seed"))


def _act(live: LiveTable, person: Person, payload: dict[str, Any]) -> None:
    deal = payload.get("deal")
    if deal is not None and deal not in ("cook", "split"):
        raise TableError("bad_request", 'field "deal" must be "cook" or "split"')
    action = Action(person.name, payload["do"], payload.get("to"), deal)
    started = time.perf_counter()
    live.act(person, payload["version"], action)  # the update is sent before it returns
    metrics.ACTION_SECONDS.observe(time.perf_counter() - started)


def _host(may_host: MayEnter) -> Callable[[LiveTable, Person, dict[str, Any]], None]:
    """`table:host`: refused (`not_host`) to anyone but the table's creator and the
    administrators, before anything is read of the arguments."""

    def run(live: LiveTable, person: Person, payload: dict[str, Any]) -> None:
        if not may_host(live.id, person.id):
            raise TableError("not_host", "only the table's creator or an administrator hosts it")
        do = payload["do"]
        if do not in HOST_CONTROLS:
            raise TableError("bad_request", f'"do" is one of {", ".join(HOST_CONTROLS)}')
        live.host(person, do, payload.get("player"), payload.get("rules"))

    return run


def init_app(tables: Tables, may_enter: MayEnter, may_host: MayEnter) -> None:
    def on(name: str, run: Any, required: protocol.Shape | None = None, **optional: type) -> None:
        """Every table event names its table; `required`/`optional` add its own fields."""
        protocol.on(
            name,
            _event(tables, may_enter, name, run),
            required={**TABLE, **(required or {})},
            optional=optional,
        )

    on(
        "table:join",
        lambda live, person, p: {
            "ok": True,
            **live.join(_sid(), person, p.get("since"), sit=p.get("sit", False)),
        },
        since=int,
        sit=bool,
    )
    on("table:leave", lambda live, person, p: live.leave(_sid()))
    on("table:sit", lambda live, person, p: {"ok": live.sit(person, p.get("seat"), p.get("stack"))},
       seat=int, stack=int)  # fmt: skip  # sit says True: seated, or queued (C-1.2)
    on("table:stand", lambda live, person, p: live.stand(person))
    on("table:ready", _answer(READY), seed=str)  # the page's shuffle seed (fairness.md)
    on("table:skip", _answer(SKIP))
    on("table:dark", _answer(DARK), seed=str)
    on("table:act", _act, required={"version": int, "do": str}, to=int, deal=str)
    on("table:chat", lambda live, person, p: live.say(_sid(), p.get("text"), p.get("phrase")),
       text=str, phrase=int)  # fmt: skip
    on("table:host", _host(may_host), required={"do": str}, player=str, rules=dict)
    on("table:ask_speak", lambda live, person, p: live.ask_to_speak(person))
