"""The lobby's Socket.IO events (docs/protocol.md, «Lobby»)."""

from __future__ import annotations

from typing import Any

from flask import request
from flask_socketio import emit, join_room, leave_room, rooms

from app import protocol
from app.auth.presence import Player
from app.chat import ChatRefused
from app.extensions import socketio

from .service import ROOM, get_lobby

STATE = "lobby:state"
CHAT = "lobby:chat"


def join(player: Player, payload: dict[str, Any]) -> None:
    """Enter the lobby room and get the table list and the recent chat."""
    join_room(ROOM)
    lobby = get_lobby()
    emit(STATE, {"tables": lobby.tables(), "chat": lobby.chat.recent()})


def leave(player: Player, payload: dict[str, Any]) -> None:
    leave_room(ROOM)


def chat(player: Player, payload: dict[str, Any]) -> None:
    """Say something in the lobby chat: plain text, bounded and rate limited."""
    # Not typed (next line): Flask-SocketIO adds `sid` to the request of a socket event.
    if ROOM not in rooms(sid=request.sid):  # type: ignore[attr-defined]
        raise protocol.ProtocolError("join the lobby first")
    try:
        line = get_lobby().chat.say(player.name, payload["text"])
    except ChatRefused as e:
        raise protocol.ProtocolError(str(e)) from None
    socketio.emit(CHAT, line.as_json(), to=ROOM)


def init_app() -> None:
    protocol.on("lobby:join", join)
    protocol.on("lobby:leave", leave)
    protocol.on(CHAT, chat, required={"text": str})
