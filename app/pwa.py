"""The installable web app (C §9): the manifest and the service worker.

The worker is served from the site root so that its scope covers every page; it keeps the
shell (pages' scripts, styles, icons, the offline page) so the app opens without a network
and shows «нет соединения» until the server is back.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, url_for

bp = Blueprint("pwa", __name__)

STATIC = Path(__file__).resolve().parent.parent / "static"
# What the worker stores on install: the shell of every page, in their static paths — every
# stylesheet and script module (a module left out breaks the whole page offline: its
# importers never run; tests/test_pwa_shell.py), the table's per-game modules
# (static/js/games/), the icons and the bots' avatars.
SHELL = (
    *sorted(f"css/{p.name}" for p in (STATIC / "css").glob("*.css")),
    *sorted(f"js/{p.name}" for p in (STATIC / "js").glob("*.js")),
    *sorted(f"js/games/{p.name}" for p in (STATIC / "js" / "games").glob("*.js")),
    "vendor/socket.io.esm.min.js",
    "icons/icon.svg",
    "icons/icon-192.png",
    "icons/icon-512.png",
    # The bots' avatars (app/bots/seats.py ROSTER): pictures, drawn on any machine.
    *sorted(f"img/avatars/{p.name}" for p in (STATIC / "img" / "avatars").glob("*.svg")),
)
ICONS = (
    ("icons/icon-192.png", "192x192", "image/png", "any"),
    ("icons/icon-512.png", "512x512", "image/png", "any"),
    ("icons/maskable-512.png", "512x512", "image/png", "maskable"),
    ("icons/icon.svg", "any", "image/svg+xml", "any"),
)


@cache
def shell_version(static_folder: str) -> str:
    """A hash of the shell's files: a new release changes it, so the worker replaces its cache."""
    digest = hashlib.sha256()
    for name in (*SHELL, "sw.js"):
        digest.update((Path(static_folder) / name).read_bytes())
    return digest.hexdigest()[:12]


@bp.route("/manifest.webmanifest")
def manifest() -> Any:
    data = {
        "name": "Свара",
        "short_name": "Свара",
        "description": "Свара: карточный стол с голосовым чатом",
        "lang": "ru",
        "start_url": url_for("lobby.index") if "lobby.index" in current_app.view_functions else "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "portrait",
        "background_color": "#0b3d24",
        "theme_color": "#0b3d24",
        "icons": [
            {"src": url_for("static", filename=path), "sizes": sizes, "type": kind, "purpose": p}
            for path, sizes, kind, p in ICONS
        ],
    }
    response = jsonify(data)
    response.mimetype = "application/manifest+json"
    return response


@bp.route("/sw.js")
def service_worker() -> Response:
    """static/sw.js with the shell list and version filled in, served at the root scope."""
    static = current_app.static_folder or ""
    source = (Path(static) / "sw.js").read_text(encoding="utf-8")
    shell = [url_for("static", filename=name) for name in SHELL] + [url_for("pwa.offline")]
    body = source.replace("__VERSION__", shell_version(static)).replace(
        "__SHELL__", repr(shell).replace("'", '"')
    )
    response = Response(body, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Service-Worker-Allowed"] = "/"
    return response


@bp.route("/offline")
def offline() -> Any:
    """What the worker shows for a page it has never stored while the network is down."""
    return render_template("offline.html")


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
