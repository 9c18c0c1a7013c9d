"""Configuration: defaults, then the instance folder's `config.py`, then `SVARA_*` variables.

The instance folder holds everything that belongs to one installation (the SQLite database,
the secret key, an optional `config.py`), so a fresh clone runs with no setup and two
instances never share state.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Flask is imported only by the factory (see app/__init__.py)
    from flask import Flask

INSTANCE_ENV = "SVARA_INSTANCE"
ENV_PREFIX = "SVARA"
SECRET_KEY_FILE = "secret_key"
TLS_KEY_FILE = "tls-key.pem"  # the generated certificate's key (app/tls.py)
# Owner-only modes (docs/hosting.md, «The instance folder»): the folder, and every file
# holding a secret — the database (password hashes, every hand in play with its deals and
# seeds), SQLite's files beside it, the session key and the generated TLS key.
FOLDER_MODE = 0o700
FILE_MODE = 0o600
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")

log = logging.getLogger(__name__)

DEFAULTS: dict[str, Any] = {
    "HOST": "127.0.0.1",
    "PORT": 5000,
    # eventlet is the designed server; threading runs the same code (docs/architecture.md).
    "ASYNC_MODE": "eventlet",
    # Number of proxies in front of the server whose X-Forwarded-* headers are trusted;
    # 0 trusts none (a direct client could otherwise spoof its address) ...
    "TRUST_PROXY": 0,
    # ... and the addresses they connect from (addresses or CIDR ranges): a request from
    # anywhere else has its forwarding headers dropped (docs/hosting.md «On the open internet»).
    "PROXY_ADDRESSES": ["127.0.0.1", "::1"],
    # Tests shrink every game timer by this factor instead of sleeping (app/tables/scheduler.py).
    "TIMER_SCALE": 1.0,
    # A bot's thinking time before each answer, seconds of game time (scaled like the timers):
    # one number, or [low, high] drawn uniformly (docs/rules.md, «Bots»).
    "BOT_THINK": [1.0, 3.0],
    "DATABASE_URL": None,  # None: SQLite in the instance folder
    # SQLite: seconds a write waits for another process's lock, then the action is refused.
    "DB_BUSY_TIMEOUT": 30.0,
    # Several processes (docs/hosting.md, «Beyond one machine»): Flask-SocketIO's message
    # queue (redis://…) and which tables this process owns, "i/n" (app/shards.py).
    "MESSAGE_QUEUE": None,
    "SHARD": "0/1",
    "AUTO_MIGRATE": True,
    # Sockets served at once (each player's page holds one; eventlet's own default is 1,024)
    # and so the open-files limit `svara serve` raises itself to (docs/hosting.md).
    "MAX_CONNECTIONS": 4096,
    # Seconds a connection has for its TLS handshake and each request head, and open
    # connections per client address (IPv6: per /64); cli/guard.py.
    "HEADER_TIMEOUT": 10.0,
    "CONNECTIONS_PER_ADDRESS": 64,
    "LOGIN_ATTEMPTS": 5,  # failed logins per IP and name ...
    "LOGIN_NAME_ATTEMPTS": 20,  # ... and per name from addresses not his usual ones ...
    "LOGIN_WINDOW": 300,  # ... within this many seconds
    # Logins and sign-ups (each costs a password hash) per client address and in all, in
    # the `limits` library's notation; where the counts live (docs/hosting.md «Limits»).
    "LOGIN_RATE": "30/minute",
    "LOGIN_RATE_TOTAL": "300/minute",
    "SIGNUP_RATE": "10/hour",
    "SIGNUP_RATE_TOTAL": "100/hour",
    "RATE_LIMIT_STORAGE": "memory://",
    # «Попросить фишки» (app/admin/requests.py): the most one request asks for, and how
    # many requests a player may send (the `limits` library's notation).
    "ASK_MAX": 100_000,
    "ASK_RATE": "5/hour",
    # The first start of `svara serve` grants the house this much for the bots, and seats
    # two of them at the demo table (`make run` sets it; 0: the house starts empty).
    "DEMO_HOUSE": 0,
    # Password hashes computed at once (off the event loop; None: half the cores, at least
    # one — the rest stay with the tables), and how many more may wait.
    "HASH_THREADS": None,
    "HASH_QUEUE": 8,
    "PASSWORD_HASH": {},  # argon2-cffi's PasswordHasher parameters; {}: its defaults
    # Every Socket.IO connection's event budget (docs/protocol.md «Budget»).
    "EVENT_RATE": 20,  # events per second ...
    "EVENT_BURST": 60,  # ... and at once
    # Engine.IO connections not (yet) a logged-in player's: in all and per address.
    "HANDSHAKES_PENDING": 256,
    "HANDSHAKES_PER_ADDRESS": 16,
    # A player's disconnect reaches his tables («offline») this many seconds later, unless
    # he is back: reconnects cost the watchers nothing (app/auth/sockets.py).
    "PRESENCE_GRACE": 2.0,
    "MAX_MESSAGE_BYTES": 65536,  # longest Socket.IO message (an SDP offer is ~15 kB)
    "CHAT_MAX_LENGTH": 300,
    "CHAT_KEEP": 50,  # messages kept and sent on joining
    "CHAT_RATE": 5,  # messages per user ...
    "CHAT_RATE_WINDOW": 10,  # ... within this many seconds
    "NAME_MAX_LENGTH": 24,
    "PASSWORD_MIN_LENGTH": 8,
    "SESSION_COOKIE_HTTPONLY": True,
    # `svara serve --tls` sets TLS: the session cookie is then Secure and HSTS is sent
    # (app/headers.py). Behind a TLS proxy set SESSION_COOKIE_SECURE yourself.
    "TLS": False,
    "SESSION_COOKIE_SECURE": False,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "WTF_CSRF_TIME_LIMIT": None,  # a token lives as long as the session
    # Voice at the table (C-8.3, docs/hosting.md «Voice»): False runs no voice server.
    "VOICE": True,
    "VOICE_ICE_SERVERS": [],  # STUN/TURN, browser style: [{"urls", "username", "credential"}]
    "VOICE_ADDRESSES": [],  # IPs or interface names offered to browsers; [] = all but loopback
    "VOICE_PORTS": None,  # UDP port range for media, e.g. "40000-40099"; None = any
    "VOICE_TURN_SECRET": None,  # coturn's static-auth-secret: each browser its own TURN login
    "VOICE_TURN_TTL": 600,  # seconds a browser's TURN login lasts (its page renews it)
    "VOICE_TURN_CLI": None,  # coturn's admin CLI, "127.0.0.1:5766": a voice's end ends its relay
    "VOICE_TURN_CLI_PASSWORD": None,  # its cli-password
    "VOICE_PUBLIC_ADDRESS": None,  # the router's public IP, offered besides the SFU's own
    "VOICE_DROP_AFTER": None,  # seconds without ICE consent before a peer is dropped; None ≈ 30
    "VOICE_TICK_MS": None,  # the SFU reads its sockets once per tick while audio flows; None: 10
}


def instance_folder(explicit: str | os.PathLike[str] | None = None) -> Path:
    """`--instance DIR`, else `SVARA_INSTANCE`, else `./instance`; absolute and created."""
    folder = Path(explicit or os.environ.get(INSTANCE_ENV) or "instance").resolve()
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    return folder


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL; None for another database or an in-memory one."""
    from sqlalchemy.engine import make_url  # the URL as the engine itself reads it

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def private_files(folder: Path, database: Path | None) -> list[Path]:
    """The files that must be owner-only: the database and its side files, the keys."""
    files = [folder / SECRET_KEY_FILE, folder / TLS_KEY_FILE]
    if database is not None:
        files += [database, *(database.with_name(database.name + s) for s in SQLITE_SIDE_FILES)]
    return files


def tighten(folder: Path, database: Path | None) -> list[Path]:
    """At every start: the instance folder FOLDER_MODE and its private files FILE_MODE; a
    looser one (made by an older version, a copy, a restore under umask 022) is tightened
    with a warning. Returns what was tightened."""
    tightened = []
    for path, mode in [
        (folder, FOLDER_MODE),
        *((f, FILE_MODE) for f in private_files(folder, database)),
    ]:
        try:
            now = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            continue
        if now & ~mode:
            try:
                path.chmod(now & mode)
            except OSError as refused:
                log.warning("%s is mode %o and could not be made %o: %s", path, now, mode, refused)
                continue
            log.warning("%s was mode %o, readable by others: now %o", path, now, now & mode)
            tightened.append(path)
    return tightened


def secret_key(folder: Path) -> str:
    """The instance's secret key, generated on first start and kept (owner-only) so that
    sessions survive restarts."""
    path = folder / SECRET_KEY_FILE
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))
    return path.read_text().strip()


def load(app: Flask, overrides: dict[str, Any] | None) -> None:
    """Fill `app.config`: defaults < instance `config.py` < `SVARA_*` < `overrides`."""
    app.config.update(DEFAULTS)
    app.config.from_pyfile("config.py", silent=True)
    # SVARA_PORT=5001 → PORT=5001; values are parsed as JSON when they parse (Flask's rule).
    app.config.from_prefixed_env(ENV_PREFIX)
    app.config.update(overrides or {})
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secret_key(Path(app.instance_path))
    if not app.config.get("DATABASE_URL"):
        app.config["DATABASE_URL"] = f"sqlite:///{Path(app.instance_path) / 'svara.db'}"
    tighten(Path(app.instance_path), sqlite_path(app.config["DATABASE_URL"]))
    app.config["TRUST_PROXY"] = int(app.config["TRUST_PROXY"])
    app.config["TIMER_SCALE"] = float(app.config["TIMER_SCALE"])
