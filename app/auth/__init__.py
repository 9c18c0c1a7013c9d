"""Accounts and connections: register, log in, log out, sockets only with a session."""

from __future__ import annotations

import os

from flask import Flask

from . import sockets
from .cookie import SocketCookieSessions
from .hashing import passwords
from .limits import AccountLimits
from .presence import EXTENSION as PRESENCE
from .presence import Presence
from .service import current_user
from .views import LIMIT_EXTENSION, LogoutForm, bp


def init_app(app: Flask) -> None:
    app.session_interface = SocketCookieSessions()
    app.extensions[PRESENCE] = Presence()
    app.extensions[LIMIT_EXTENSION] = AccountLimits(app.config)
    threads = app.config["HASH_THREADS"] or max(1, (os.cpu_count() or 2) // 2)
    passwords.configure(
        int(threads),
        int(app.config["HASH_QUEUE"]),
        dict(app.config["PASSWORD_HASH"]),
    )
    app.register_blueprint(bp)
    sockets.init_app(app)

    @app.context_processor
    def account() -> dict[str, object]:
        """Every page knows who is logged in and can offer a CSRF-protected logout."""
        return {"current_user": current_user(), "logout_form": LogoutForm}
