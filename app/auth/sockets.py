"""Socket.IO connections: only with a valid session; a table page's is its account's one at
that table (C-8.2: a second connection to the same table takes over, a lobby tab does not).

Two guards around that (docs/protocol.md «Budget», docs/hosting.md «Limits»):
- `Handshakes`: an Engine.IO connection costs memory from its first request on, before the
  Socket.IO connection is accepted; those not yet accepted are bounded, and the one over
  the bound is answered 401 at once. A handshake that brings a valid session (a logged-in
  player's page) is counted by its account, the others by client address (IPv6 by /64) and
  in all: bare handshakes from many addresses cannot lock a player out.
- A player's disconnect is told to the features (the tables' «offline») only after
  `PRESENCE_GRACE` seconds, saying whether he is connected by then: a page that
  reconnects — or a client that connects and disconnects in a loop — makes no table
  publish «offline» and «online» for it.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from flask import Flask, current_app, request
from flask_socketio import ConnectionRefusedError, disconnect, join_room, leave_room

from app.clients import group
from app.extensions import socketio

from .presence import Player, get_presence, table_room, user_room
from .service import current_user

TAKEN_OVER = "session:taken_over"
OPENED_ELSEWHERE = "opened elsewhere"
CROWDED = "too many connections"
HANDSHAKES = "svara.handshakes"


class Handshakes:
    """Engine.IO connections not yet a player's connection, by Engine.IO session id: each
    counted under its account (`account(environ)`: the id of the session's player, or
    None) or else its client's address group; at most `per_address` under one key, and at
    most `total` of those without an account."""

    def __init__(
        self,
        eio: Any,
        total: int,
        per_address: int,
        account: Callable[[dict[str, Any]], int | None] = lambda environ: None,
    ):
        self.total, self.per_address, self.account = total, per_address, account
        self._key: dict[str, str] = {}
        self._count: Counter[str] = Counter()
        self._anonymous = 0
        self._lock = threading.Lock()
        self._opened, self._closed = eio.handlers["connect"], eio.handlers["disconnect"]
        eio.on("connect", self.opened)
        eio.on("disconnect", self.closed)

    def opened(self, eio_sid: str, environ: dict[str, Any]) -> Any:
        player = self.account(environ)
        key = group(environ.get("REMOTE_ADDR", "")) if player is None else f"player {player}"
        with self._lock:
            full = player is None and self._anonymous >= self.total
            if full or self._count[key] >= self.per_address:
                return {"message": CROWDED}  # engine.io answers 401 with it
            self._key[eio_sid] = key
            self._count[key] += 1
            self._anonymous += player is None
        return self._opened(eio_sid, environ)

    def settled(self, eio_sid: str) -> None:
        """The connection is a player's now (or gone): it no longer counts."""
        with self._lock:
            key = self._key.pop(eio_sid, None)
            if key is not None:
                self._anonymous -= not key.startswith("player ")
                self._count[key] -= 1
                if not self._count[key]:
                    del self._count[key]

    def closed(self, eio_sid: str, *args: Any) -> Any:
        self.settled(eio_sid)
        return self._closed(eio_sid, *args)


def _handshakes() -> Handshakes:
    return current_app.extensions[HANDSHAKES]


def _table_of(auth: object) -> int | None:
    """The table a table page connects for (`{"table": id}`), None for any other page;
    `ConnectionRefusedError` for handshake data of another shape (docs/protocol.md)."""
    from app.protocol import ProtocolError, check_payload  # here: app.protocol imports us

    try:
        table = check_payload(auth, {}, {"table": int}).get("table")
    except ProtocolError as e:
        raise ConnectionRefusedError(f"auth: {e.reason}") from None
    if table is not None and table < 1:
        raise ConnectionRefusedError("auth: field 'table' must be a table id")
    return table


def connect(auth: object = None) -> None:
    """Accept a logged-in user; a previous connection of his to the same table is told
    why and closed (C-8.2); any other connection of his (the lobby in another tab) stays."""
    user = current_user()
    if user is None or user.id is None:
        raise ConnectionRefusedError("login required")
    from app.protocol import GATE  # here: app.protocol imports this package

    if current_app.extensions[GATE].refuses(user.id):  # his flood goes on: no new connection
        raise ConnectionRefusedError("too many events")
    table = _table_of(auth)
    player = Player(user.id, user.name, user.is_admin)
    presence = get_presence()
    # Not typed (next line): Flask-SocketIO adds `sid` to the request of a socket event.
    sid: str = request.sid  # type: ignore[attr-defined]
    _handshakes().settled(socketio.server.manager.eio_sid_from_sid(sid, "/"))
    old = presence.connect(player, sid, table)
    join_room(user_room(player.id))
    if table is not None:
        room = table_room(player.id, table)
        # The older connection to this table is told: here, and with several processes
        # through the message queue in the others too, whose pages then close themselves
        # (static/js/net.js); this process also closes its own.
        taken = {"reason": OPENED_ELSEWHERE, "table": table}
        socketio.emit(TAKEN_OVER, taken, to=room, skip_sid=sid)
        for gone in old:
            leave_room(room, sid=gone, namespace="/")
            disconnect(sid=gone, namespace="/")
        join_room(room)
    for hook in presence.on_connect:
        hook(player, sid, table)


def disconnected(reason: object = None) -> None:
    presence = get_presence()
    # Not typed (next line): Flask-SocketIO adds `sid` to the request of a socket event.
    sid: str = request.sid  # type: ignore[attr-defined]
    gone = presence.disconnect(sid)
    if gone is None:
        return
    player, still = gone
    grace = float(current_app.config["PRESENCE_GRACE"])
    if grace <= 0:
        _tell(player, sid, still)
    else:  # a takeover too: its new connection may not have been followed yet
        # Not typed (next line): flask types the proxy `current_app` as the app it stands for.
        app = current_app._get_current_object()  # type: ignore[attr-defined]
        socketio.start_background_task(_later, app, player, sid, grace)


def _later(app: Flask, player: Player, sid: str, grace: float) -> None:
    socketio.sleep(grace)
    with app.app_context():
        _tell(player, sid, bool(get_presence().sids(player.id)))


def _tell(player: Player, sid: str, still: bool) -> None:
    for hook in get_presence().on_disconnect:
        hook(player, sid, still)


def init_app(app: Flask) -> None:
    def account(environ: dict[str, Any]) -> int | None:
        """The player whose valid session the handshake brings (no cookie: no lookup)."""
        if "HTTP_COOKIE" not in environ:
            return None
        with app.request_context(environ):
            user = current_user()
            return None if user is None else user.id

    app.extensions[HANDSHAKES] = Handshakes(
        socketio.server.eio,
        int(app.config["HANDSHAKES_PENDING"]),
        int(app.config["HANDSHAKES_PER_ADDRESS"]),
        account,
    )
    socketio.on_event("connect", connect)
    socketio.on_event("disconnect", disconnected)
