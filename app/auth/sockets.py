"""Socket.IO connections: only with a valid session, one per account (C-8.2)."""

from __future__ import annotations

from flask import request
from flask_socketio import ConnectionRefusedError, disconnect, join_room, leave_room

from app.extensions import socketio

from .presence import Player, get_presence, user_room
from .service import current_user

TAKEN_OVER = "session:taken_over"


def connect(auth: object = None) -> None:
    """Accept a logged-in user; a previous connection of his is told why and closed."""
    user = current_user()
    if user is None or user.id is None:
        raise ConnectionRefusedError("login required")
    player = Player(user.id, user.name, user.is_admin)
    presence = get_presence()
    # Not typed (next line): Flask-SocketIO adds `sid` to the request of a socket event.
    sid: str = request.sid  # type: ignore[attr-defined]
    old = presence.connect(player, sid)
    room = user_room(player.id)
    # Every older connection of the user is told: here, and with several processes through
    # the message queue in the others too, whose pages then close themselves (static/js).
    socketio.emit(TAKEN_OVER, {"reason": "logged in elsewhere"}, to=room, skip_sid=sid)
    if old is not None:
        leave_room(room, sid=old, namespace="/")
        disconnect(sid=old, namespace="/")
    join_room(room)
    for hook in presence.on_connect:
        hook(player, sid)


def disconnected(reason: object = None) -> None:
    presence = get_presence()
    # Not typed (next line): Flask-SocketIO adds `sid` to the request of a socket event.
    sid: str = request.sid  # type: ignore[attr-defined]
    gone = presence.disconnect(sid)
    if gone is not None:
        player, taken_over = gone
        for hook in presence.on_disconnect:
            hook(player, sid, taken_over)


def init_app() -> None:
    socketio.on_event("connect", connect)
    socketio.on_event("disconnect", disconnected)
