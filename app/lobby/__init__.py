"""The lobby: open tables with live occupancy, and the lobby chat."""

from __future__ import annotations

from flask import Flask

from app.chat import Chat
from app.models.db import EXTENSION as DB

from . import sockets
from .service import EXTENSION, Lobby
from .views import bp


def init_app(app: Flask) -> None:
    db = app.extensions[DB]
    app.extensions[EXTENSION] = Lobby(db, Chat.from_config(app.config, db))
    app.register_blueprint(bp)
    sockets.init_app()
