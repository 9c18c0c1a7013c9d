"""Who is connected: at most one Socket.IO connection per account (C-8.2).

The socket layer records each accepted connection here. Features react to connections
through hooks rather than their own `connect` handlers, so the order is always: the session
is checked, an older connection of the same user is taken over, then the hooks run::

    presence = get_presence()
    presence.on_connect.append(lambda player, sid: ...)       # e.g. resend a table's state
    presence.on_disconnect.append(lambda player, sid, taken_over: ...)

A disconnect's hooks run `PRESENCE_GRACE` seconds late (app/auth/sockets.py), with
`taken_over` true when the player has a live connection again by then.

Every connection is in its user's room (`user_room`), so `socketio.emit(event, data,
to=user_room(user_id))` reaches the user's one live connection from anywhere.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from flask import current_app

EXTENSION = "svara.presence"


@dataclass(frozen=True)
class Player:
    """The user behind a connection, as known when it connected."""

    id: int
    name: str
    is_admin: bool


def user_room(user_id: int) -> str:
    """The Socket.IO room holding a user's live connection."""
    return f"user:{user_id}"


ConnectHook = Callable[[Player, str], None]
DisconnectHook = Callable[[Player, str, bool], None]


class Presence:
    """The live connections of this process, by user and by socket id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sid_of: dict[int, str] = {}
        self._player_of: dict[str, Player] = {}
        self.on_connect: list[ConnectHook] = []
        self.on_disconnect: list[DisconnectHook] = []

    def connect(self, player: Player, sid: str) -> str | None:
        """Record `sid` as the player's connection; returns the one it replaces, if any."""
        with self._lock:
            old = self._sid_of.get(player.id)
            self._sid_of[player.id] = sid
            self._player_of[sid] = player
            return old

    def disconnect(self, sid: str) -> tuple[Player, bool] | None:
        """Forget `sid`; returns its player and whether it had been taken over."""
        with self._lock:
            player = self._player_of.pop(sid, None)
            if player is None:
                return None
            taken_over = self._sid_of.get(player.id) != sid
            if not taken_over:
                del self._sid_of[player.id]
            return player, taken_over

    def player(self, sid: str) -> Player | None:
        """The player of a connection still current (None once taken over or gone)."""
        with self._lock:
            player = self._player_of.get(sid)
            if player is None or self._sid_of.get(player.id) != sid:
                return None
            return player

    def connected_count(self) -> int:
        """Players with a live connection (one each, C-8.2)."""
        with self._lock:
            return len(self._sid_of)

    def sid(self, user_id: int) -> str | None:
        """The user's live connection, if any."""
        with self._lock:
            return self._sid_of.get(user_id)


def get_presence() -> Presence:
    return current_app.extensions[EXTENSION]
