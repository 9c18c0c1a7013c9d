"""Svara: the web application (app factory, features) and the pure rules engine (app.engine).

Importing `app` stays free of Flask: the engine is pure and the rules CLI imports it, and
`svara serve` must monkey-patch eventlet before the web stack is imported. So the factory
imports the web stack when it is called.

Each feature is a module with `init_app(app)` (blueprints, Socket.IO handlers, its state in
`app.extensions`) and, if it runs something in the serving process only (`svara serve`, not
the admin CLI, which builds the app too), `start(app)` and maybe `stop(app)`. `FEATURES`
lists them in start-up order: `create_app` calls every `init_app`, `start` every `start`,
`stop` every `stop` in the reverse order.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

ROOT = Path(__file__).resolve().parent.parent
FEATURES = (
    "app.protocol",
    "app.auth",
    "app.lobby",
    "app.tables",  # start: recover unfinished hands (C-8.5), start the timers
    "app.bots",  # start: the bots of open tables sit down
    "app.admin.live",  # start: apply the admin CLI's changes as they come (admin/notices.py)
    "app.admin.requests",  # «Попросить фишки»: the money:* events
    "app.admin.web",  # the host's page, /admin
    "app.voice.sockets",  # start: the voice chat's SFU process, supervised; stop: end it
    "app.pages",
    "app.history",
    "app.pwa",
    "app.health",
)


def web_folder(name: str) -> Path:
    """templates/ or static/: inside the package in an installed wheel (setup.py maps them
    there), beside it in a checkout and its editable install."""
    packaged = Path(__file__).resolve().parent / name
    return packaged if packaged.is_dir() else ROOT / name


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the web app on one instance folder; `config` overrides every other source
    (docs/hosting.md «Settings»: defaults < instance config.py < SVARA_* < `config`)."""
    from . import config as settings
    from . import headers, migrations, rooms
    from .extensions import csrf, socketio
    from .models.db import EXTENSION, Database
    from .socket_context import SocketApp
    from .wire import WirePacket

    config = dict(config or {})
    instance = settings.instance_folder(config.pop("INSTANCE", None))
    app = SocketApp(
        __name__,
        instance_path=str(instance),
        instance_relative_config=True,
        template_folder=str(web_folder("templates")),
        static_folder=str(web_folder("static")),
    )
    settings.load(app, config)

    db = Database(app.config["DATABASE_URL"], float(app.config["DB_BUSY_TIMEOUT"]))
    app.extensions[EXTENSION] = db
    if app.config["AUTO_MIGRATE"]:
        migrations.upgrade(db.engine)

    csrf.init_app(app)
    headers.init_app(app)
    managed = rooms.client_manager(app.config["MESSAGE_QUEUE"])  # rooms indexed by client
    socketio.init_app(
        app,
        async_mode=app.config["ASYNC_MODE"],
        message_queue=app.config["MESSAGE_QUEUE"],
        **({"client_manager": managed} if managed is not None else {}),
        serializer=WirePacket,  # text packets without python-socketio's binary scan
        max_http_buffer_size=int(app.config["MAX_MESSAGE_BYTES"]),
    )
    # Outside Socket.IO's middleware, so that Engine.IO's handshake bound counts each
    # client's address, not the proxy's (docs/hosting.md «Behind a reverse proxy»).
    headers.trust_proxy(app)
    for feature in FEATURES:
        init_app = getattr(import_module(feature), "init_app", None)
        if init_app is not None:
            init_app(app)
    return app


def start(app: Flask) -> None:
    """Start what the serving process runs, feature by feature (`FEATURES`)."""
    for feature in FEATURES:
        begin = getattr(import_module(feature), "start", None)
        if begin is not None:
            begin(app)


def stop(app: Flask) -> None:
    """End what `start` started, in the reverse order."""
    for feature in reversed(FEATURES):
        end = getattr(import_module(feature), "stop", None)
        if end is not None:
            end(app)
