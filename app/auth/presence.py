"""Who is connected: a table page's connection is its account's one at that table (C-8.2).

A user may have several connections at once — the lobby in one tab, a table in another,
the rules page's… Only a table page names its table when it connects (the Socket.IO
handshake's `auth`, docs/protocol.md «Connecting»), and only such a connection takes over:
the user's older connection to the same table is told why and closed. The socket layer
records each accepted connection here. Features react to connections through hooks rather
than their own `connect` handlers, so the order is always: the session is checked, an older
connection of the same user to the same table is taken over, then the hooks run::

    presence = get_presence()
    presence.on_connect.append(lambda player, sid, table: ...)  # e.g. resend a table's state
    presence.on_disconnect.append(lambda player, sid, still: ...)

A disconnect's hooks run `PRESENCE_GRACE` seconds late (app/auth/sockets.py), with
`still` true when the player has a live connection by then (another tab, or the new one of
a takeover).

Every connection is in its user's room (`user_room`), so `socketio.emit(event, data,
to=user_room(user_id))` reaches every live connection of the user from anywhere; a table
page's connection is also in `table_room(user_id, table)`, which reaches the one that plays
the table, in whichever process it is.
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
    """The Socket.IO room holding every live connection of a user."""
    return f"user:{user_id}"


def table_room(user_id: int, table: int) -> str:
    """The Socket.IO room of the user's table page connection to `table` (C-8.2)."""
    return f"user:{user_id}:table:{table}"


ConnectHook = Callable[[Player, str, int | None], None]
DisconnectHook = Callable[[Player, str, bool], None]


class Presence:
    """The live connections of this process, by user and by socket id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Every connection of a user not taken over, with the table its page plays at.
        self._current: dict[int, dict[str, int | None]] = {}
        # Every connection until its disconnect, taken over or not.
        self._player_of: dict[str, Player] = {}
        self.on_connect: list[ConnectHook] = []
        self.on_disconnect: list[DisconnectHook] = []

    def connect(self, player: Player, sid: str, table: int | None = None) -> list[str]:
        """Record `sid`, a page of `table` (None: not a table page); returns the user's
        connections it takes over: those to the same table (C-8.2)."""
        with self._lock:
            mine = self._current.setdefault(player.id, {})
            old = [s for s, t in mine.items() if table is not None and t == table]
            for s in old:
                del mine[s]
            mine[sid] = table
            self._player_of[sid] = player
            return old

    def disconnect(self, sid: str) -> tuple[Player, bool] | None:
        """Forget `sid`; returns its player and whether he is still connected otherwise."""
        with self._lock:
            player = self._player_of.pop(sid, None)
            if player is None:
                return None
            mine = self._current.get(player.id, {})
            mine.pop(sid, None)
            if not mine:
                self._current.pop(player.id, None)
            return player, bool(mine)

    def player(self, sid: str) -> Player | None:
        """The player of a connection still current (None once taken over or gone)."""
        with self._lock:
            player = self._player_of.get(sid)
            if player is None or sid not in self._current.get(player.id, {}):
                return None
            return player

    def connected_count(self) -> int:
        """Players with at least one live connection."""
        with self._lock:
            return len(self._current)

    def sids(self, user_id: int) -> list[str]:
        """The user's live connections (every tab), oldest first."""
        with self._lock:
            return list(self._current.get(user_id, {}))


def get_presence() -> Presence:
    return current_app.extensions[EXTENSION]
