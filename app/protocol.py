"""The Socket.IO event layer: every client event is checked before a feature sees it.

A feature registers its events with `on(name, handler, required=..., optional=...)`. The
handler runs only for a current connection (not one taken over) with a payload of exactly
the declared fields and types, and gets `(player, payload)`. Anything else — an unknown
event, a payload of the wrong shape, a handler raising `ProtocolError` — gets an `error`
event back (docs/protocol.md) and changes nothing. The ack of an event (if the client asked
for one) is the handler's return value, or `{"ok": false, "error": reason}`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, request
from flask_socketio import emit

from app import metrics
from app.auth.presence import Player, get_presence
from app.extensions import socketio

log = logging.getLogger(__name__)

ERROR = "error"
Handler = Callable[[Player, dict[str, Any]], Any]
Shape = Mapping[str, type | tuple[type, ...]]
# The integers a client may send: JSON's exact ones (a browser's Number.MAX_SAFE_INTEGER).
# Every table id, seat, stack, version or chat id a feature sees is within them, so none
# reaches SQLite beyond its 64 bits (docs/protocol.md).
MAX_INT = 2**53 - 1


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


def init_app(app: Flask) -> None:
    def unknown(event: str, data: Any = None) -> dict[str, Any]:
        return refuse(event, f"unknown event {event!r}")

    def failed(e: Exception) -> dict[str, Any]:
        log.exception("socket event failed", exc_info=e)
        # Not typed (next line): Flask-SocketIO adds `event` to the request of a socket event.
        return refuse(request.event["message"], "internal error")  # type: ignore[attr-defined]

    socketio.on_event("*", unknown)
    socketio.on_error_default(failed)
