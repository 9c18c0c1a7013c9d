"""The live table runtime (docs/architecture.md, docs/rules.md «Live tables»): one authoritative
`LiveTable` per open table, its timers in one scheduler (a lane per table), its hands on disk
as they are played, its Socket.IO events.

`init_app` wires the runtime to the lobby (occupancy), to the connections (reconnect and
takeover) and to the sockets; `start` is called by the serving process only (`svara serve`):
it recovers the hands a crash left unfinished and starts the timers; `stop` stores the chat
lines still on their way (app/chat.py). Other commands that build the app (the admin CLI)
never own the tables.
"""

from __future__ import annotations

from flask import Flask

from app.auth.presence import EXTENSION as PRESENCE
from app.chat import flush_all
from app.extensions import socketio
from app.lobby.service import EXTENSION as LOBBY
from app.models.db import EXTENSION as DB

from . import sockets
from .fair import Reveal
from .registry import Tables

EXTENSION = "svara.tables"


def init_app(app: Flask) -> None:
    lobby = app.extensions[LOBBY]
    tables = Tables(app, socketio, lobby.publish)
    lobby.count_live(tables.occupancy)
    presence = app.extensions[PRESENCE]
    presence.on_connect.append(tables.connected)
    presence.on_disconnect.append(tables.disconnected)
    sockets.init_app(tables, lobby.access.may_enter, lobby.access.may_host)
    tables.hooks.seat_freed.append(Reveal(app.extensions[DB], tables.present).seat_freed)
    app.extensions[EXTENSION] = tables


def start(app: Flask) -> None:
    """Recover unfinished hands and start the timers (the serving process, once)."""
    with app.app_context():
        app.extensions[EXTENSION].start()


def stop(app: Flask) -> None:
    """The server stops: every table's chat and the lobby's store what they still hold."""
    chats = [live.chat for live in app.extensions[EXTENSION].live()]
    flush_all([app.extensions[LOBBY].chat, *chats])
