"""The Socket.IO event layer: every client event is checked before a feature sees it.

A feature registers its events with `on(name, handler, required=..., optional=...)`. The
handler runs only for a current connection (not one taken over) with a payload of exactly
the declared fields and types, and gets `(player, payload)`. Anything else — an unknown
event, a payload of the wrong shape, a handler raising `ProtocolError` — gets an `error`
event back (docs/protocol.md) and changes nothing. The ack of an event (if the client asked
for one) is the handler's return value, or `{"ok": false, "error": reason}`.

Before any of that, every event a client sends passes the `Gate` (docs/protocol.md
«Budget»): it spends a token of the connection's bucket, and an event over budget, or one
named like a connection event (`connect`, `disconnect`) or the catch-all `*`, is answered
right there — no task, no request context, no handler — so refusing stays cheap.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from flask import Flask, request
from flask_socketio import emit
from socketio import packet
from werkzeug.routing import IntegerConverter

from app import metrics
from app.auth.presence import EXTENSION as PRESENCE
from app.auth.presence import Player, get_presence
from app.extensions import socketio

log = logging.getLogger(__name__)

ERROR = "error"
GATE = "svara.gate"
RATE = "rate"  # the refusal code of an event over the connection's budget
# Names a client may not send: python-socketio would run the connection handlers for
# them, and `*` would reach the catch-all without its event name.
RESERVED = frozenset({"connect", "disconnect", "*"})
Handler = Callable[[Player, dict[str, Any]], Any]
Shape = Mapping[str, type | tuple[type, ...]]
# The integers a client may send: JSON's exact ones (a browser's Number.MAX_SAFE_INTEGER).
# Every table id, seat, stack, version or chat id a feature sees is within them, so none
# reaches SQLite beyond its 64 bits (docs/protocol.md).
MAX_INT = 2**53 - 1


class IdConverter(IntegerConverter):
    """`<id:…>` in a URL: a positive id within MAX_INT, as on the sockets; a larger one
    matches no route (404) instead of overflowing SQLite's integers (an HTTP 500)."""

    def __init__(self, map: Any) -> None:
        super().__init__(map, min=1, max=MAX_INT)


class ProtocolError(Exception):
    """An event the server refuses; `reason` is sent to the client."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def refuse(event: str, reason: str) -> dict[str, Any]:
    """Tell the sender why its event was refused; the dict is the event's ack."""
    metrics.refused(metrics.PROTOCOL)
    emit(ERROR, {"event": event, "reason": reason})
    return {"ok": False, "error": reason}


def _fits(value: Any, kind: type | tuple[type, ...]) -> bool:
    # JSON has no separate bool: true is not a number here, even though bool is an int.
    if isinstance(value, bool):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        return bool in kinds
    return isinstance(value, kind)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {str: "string", int: "integer", bool: "boolean", dict: "object", list: "array"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def check_payload(data: Any, required: Shape, optional: Shape) -> dict[str, Any]:
    """The payload if it is an object with exactly these fields and types."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ProtocolError("the payload must be an object")
    unknown = sorted(set(data) - set(required) - set(optional))
    if unknown:
        raise ProtocolError(f"unknown field {unknown[0]!r}")
    for name, kind in {**required, **optional}.items():
        if name not in data:
            if name in required:
                raise ProtocolError(f"missing field {name!r}")
        elif not _fits(data[name], kind):
            raise ProtocolError(f"field {name!r} must be {_kind_name(kind)}")
        elif not _bounded(data[name]):
            raise ProtocolError(f"field {name!r} must be between {-MAX_INT} and {MAX_INT}")
    return data


def _bounded(value: Any) -> bool:
    """An integer field is within ±MAX_INT (any other value is bounded by its own check)."""
    return not isinstance(value, int) or isinstance(value, bool) or abs(value) <= MAX_INT


def on(
    name: str, handler: Handler, required: Shape | None = None, optional: Shape | None = None
) -> None:
    """Register a client event; call from a feature's `init_app`."""

    def event(data: Any = None) -> Any:
        # Not typed (next line): Flask-SocketIO adds `sid` to the request of a socket event.
        player = get_presence().player(request.sid)  # type: ignore[attr-defined]
        if player is None:
            return refuse(name, "this connection was taken over")
        try:
            payload = check_payload(data, required or {}, optional or {})
            result = handler(player, payload)
        except ProtocolError as e:
            return refuse(name, e.reason)
        return {"ok": True} if result is None else result

    socketio.on_event(name, event)


@dataclass
class Budget:
    """One player's token bucket: `rate` events a second, `burst` at once. Refusals fill a
    second bucket that drains at the same rate; a client whose refusals outrun it by more
    than `burst` keeps sending regardless, and is disconnected."""

    rate: float
    burst: float
    stamp: float
    tokens: float = field(init=False)
    refused: float = 0.0

    def __post_init__(self) -> None:
        self.tokens = self.burst

    def _refill(self, now: float) -> None:
        gained = (now - self.stamp) * self.rate
        self.stamp = now
        self.tokens = min(self.burst, self.tokens + gained)
        self.refused = max(0.0, self.refused - gained)

    def spend(self, now: float) -> bool:
        """Take a token for one event; False (and one refusal more) when there is none."""
        self._refill(now)
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 1
        return False

    def owes(self, now: float) -> bool:
        """Refusals not drained yet (at most `burst` / `rate` seconds after a flood)."""
        self._refill(now)
        return self.refused > 0

    @property
    def exhausted(self) -> bool:
        return self.refused > self.burst

    def fresh(self, now: float) -> bool:
        """Refilled and owing nothing: the same as a new budget, so it may be forgotten."""
        self._refill(now)
        return self.tokens >= self.burst and self.refused == 0


class Budgets:
    """The budgets by player (or by socket of nobody). A fresh budget is the same as none,
    so those are forgotten whenever the map has doubled since the last sweep: its size
    follows the players who sent events lately, not everyone who ever did."""

    SWEEP_FROM = 1024

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]):
        self.rate, self.burst, self.clock = rate, burst, clock
        self._budgets: dict[int | str, Budget] = {}
        self._sweep_at = self.SWEEP_FROM

    def __len__(self) -> int:
        return len(self._budgets)

    def get(self, key: int | str) -> Budget | None:
        return self._budgets.get(key)

    def of(self, key: int | str) -> Budget:
        """The key's budget, a new one if it has none."""
        budget = self._budgets.get(key)
        if budget is None:
            if len(self._budgets) >= self._sweep_at:
                self._sweep()
            budget = self._budgets[key] = Budget(self.rate, self.burst, self.clock())
        return budget

    def forget(self, key: int | str) -> None:
        self._budgets.pop(key, None)

    def _sweep(self) -> None:
        now = self.clock()
        for key in [k for k, b in self._budgets.items() if b.fresh(now)]:
            del self._budgets[key]
        self._sweep_at = max(self.SWEEP_FROM, 2 * len(self._budgets))


#: The python-socketio releases whose private API the Gate was tested on: pyproject.toml pins
#: the same series, and tests/server/protocol/test_gate_guard.py fails on any other.
SOCKETIO_SERIES = "5.18"
# What the Gate replaces and calls, with the parameters it passes.
PATCHED = {
    "_handle_event": ("eio_sid", "namespace", "id", "data"),
    "_send_packet": ("eio_sid", "pkt"),
}


def check_socketio(version: str, server_class: type) -> None:
    """Refuse to start on a python-socketio the Gate was not tested on: its private
    `Server._handle_event` / `_send_packet` may have changed in any release."""
    if version.split(".")[:2] != SOCKETIO_SERIES.split("."):
        raise RuntimeError(
            f"python-socketio {version} is installed, but app/protocol.py's Gate patches its "
            f"private Server._handle_event and _send_packet and was tested on "
            f"{SOCKETIO_SERIES}.x only: install python-socketio=={SOCKETIO_SERIES}.* "
            f"(pyproject.toml) or test the Gate on {version} and move SOCKETIO_SERIES"
        )
    for name, wanted in PATCHED.items():
        method = getattr(server_class, name, None)
        found = () if method is None else tuple(inspect.signature(method).parameters)[1:]
        if found != wanted:
            raise RuntimeError(
                f"python-socketio {version}: Server.{name}{found} is not the "
                f"{name}{wanted} app/protocol.py's Gate patches"
            )


class Gate:
    """The first step of every client event, in python-socketio's own packet handling
    (`Server._handle_event`, `_send_packet`: the one place that sees each event before a
    task is started for it). A player's budget is his across connections — connecting
    again does not refill it, and `refuses` turns away the connection of a player whose
    budget is exhausted; `who` names the player of a socket. A socket of nobody (taken
    over) has a budget of its own, forgotten when it closes."""

    def __init__(
        self,
        server: Any,
        rate: float,
        burst: float,
        who: Callable[[str], int | None],
        clock: Callable[[], float] = time.monotonic,
    ):
        check_socketio(metadata.version("python-socketio"), type(server))
        self.server, self.clock, self.who = server, clock, who
        self.budgets = Budgets(rate, burst, clock)
        self._inner = server._handle_event
        server._handle_event = self.handle_event
        eio = server.eio
        self._closed = eio.handlers["disconnect"]
        eio.on("disconnect", self.closed)

    def handle_event(self, eio_sid: str, namespace: str | None, id: int | None, data: list) -> None:
        namespace = namespace or "/"
        manager = self.server.manager
        sid = manager.sid_from_eio_sid(eio_sid, namespace)
        if sid is None or not manager.is_connected(sid, namespace):
            return self._inner(eio_sid, namespace, id, data)  # it ignores these
        name = data[0] if data else None
        key = self.who(sid)
        budget = self.budgets.of(eio_sid if key is None else key)
        if not budget.spend(self.clock()):
            self._answer(eio_sid, namespace, id, name, "too many events", RATE)
            if budget.exhausted:
                log.warning("disconnecting %s: %d events over its budget", sid, budget.refused)
                self.server.disconnect(sid, namespace)
                self.server.eio.disconnect(eio_sid)
            return None
        if not isinstance(name, str) or name in RESERVED:
            self._answer(eio_sid, namespace, id, name, f"unknown event {name!r}")
            return None
        return self._inner(eio_sid, namespace, id, data)

    def _answer(
        self,
        eio_sid: str,
        namespace: str,
        id: int | None,
        name: Any,
        reason: str,
        code: str | None = None,
    ) -> None:
        """The `error` event and the ack of a refused event, sent straight to its client."""
        event = name if isinstance(name, str) else repr(name)
        error: dict[str, Any] = {"event": event, "reason": reason}
        ack: dict[str, Any] = {"ok": False, "error": reason}
        if code is not None:
            error["code"] = ack["code"] = code
        send, make = self.server._send_packet, self.server.packet_class
        send(eio_sid, make(packet.EVENT, namespace=namespace, data=[ERROR, error]))
        if id is not None:
            send(eio_sid, make(packet.ACK, namespace=namespace, id=id, data=[ack]))

    def refuses(self, player: int) -> bool:
        """The player was refused events lately: his new connection is refused until those
        refusals have drained, so that connecting again cannot restart a flood at once."""
        budget = self.budgets.get(player)
        return budget is not None and budget.owes(self.clock())

    def closed(self, eio_sid: str, *args: Any) -> Any:
        self.budgets.forget(eio_sid)
        metrics.SOCKETS_CLOSED.inc()
        return self._closed(eio_sid, *args)


def init_app(app: Flask) -> None:
    app.url_map.converters["id"] = IdConverter

    def who(sid: str) -> int | None:
        player = app.extensions[PRESENCE].player(sid)  # made by app.auth, after this
        return None if player is None else player.id

    app.extensions[GATE] = Gate(
        socketio.server, float(app.config["EVENT_RATE"]), float(app.config["EVENT_BURST"]), who
    )

    def unknown(event: str, data: Any = None) -> dict[str, Any]:
        return refuse(event, f"unknown event {event!r}")

    def failed(e: Exception) -> dict[str, Any]:
        log.exception("socket event failed", exc_info=e)
        # Not typed (next line): Flask-SocketIO adds `event` to the request of a socket event.
        return refuse(request.event["message"], "internal error")  # type: ignore[attr-defined]

    socketio.on_event("*", unknown)
    socketio.on_error_default(failed)
