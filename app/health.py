"""`/healthz` and `/metrics` for the host (docs/hosting.md «Health and metrics»).

Both are answered only to this machine (the client address is loopback) or to a logged-in
administrator; anyone else gets 404, as if they did not exist. The client address is the one
Flask sees after the `TRUST_PROXY` proxies it trusts (werkzeug's ProxyFix). A proxy on this
machine that Svara does not trust (`TRUST_PROXY = 0`) makes every visitor look like
127.0.0.1, so then a request carrying a forwarding header is never taken as local.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, request
from sqlalchemy import text

from . import metrics

bp = Blueprint("health", __name__)

#: Headers a reverse proxy adds; without a trusted proxy they mean one we do not trust.
FORWARDING = ("X-Forwarded-For", "Forwarded", "X-Real-IP")


def is_local() -> bool:
    """The request comes from this machine itself (see the module's rule)."""
    try:
        loopback = ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False
    forwarded = any(name in request.headers for name in FORWARDING)
    return loopback and (bool(current_app.config["TRUST_PROXY"]) or not forwarded)


@bp.before_request
def local_or_admin() -> None:
    """404 unless this machine or an administrator asks (the module's rule): a stranger
    learns nothing, not even that the endpoints exist."""
    from app.auth.service import current_user

    if is_local():
        return
    user = current_user()
    if user is None or not user.is_admin:
        abort(404)


def health() -> tuple[dict[str, Any], bool]:
    """Each part's state and whether all are fine: the database answers a query; the voice
    SFU answers its `ping` (unless voice is off in the settings)."""
    from app.models.db import get_db
    from app.voice.sockets import EXTENSION as VOICE

    body: dict[str, Any] = {}
    try:
        with get_db().engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        body["database"] = "ok"
    except Exception as failure:  # any driver's error: unreachable, locked, …
        body["database"] = f"error: {type(failure).__name__}"
    hub = current_app.extensions.get(VOICE)
    if not current_app.config.get("VOICE", True) or hub is None:
        body["voice"] = "off"
    else:
        body["voice"] = "ok" if metrics.voice_stats(hub) is not None else "down"
    healthy = body["database"] == "ok" and body["voice"] != "down"
    return {"ok": healthy, **body}, healthy


@bp.route("/healthz")
def healthz() -> Any:
    body, healthy = health()
    return jsonify(body), 200 if healthy else 503


@bp.route("/metrics")
def prometheus() -> Response:
    from prometheus_client import CONTENT_TYPE_LATEST

    # Not typed (next line): flask types the proxy `current_app` as the app it stands for.
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    return Response(metrics.exposition(app), content_type=CONTENT_TYPE_LATEST)


def init_app(app: Flask) -> None:
    metrics.init_app(app)
    app.register_blueprint(bp)
