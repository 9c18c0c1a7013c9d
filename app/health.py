"""`/healthz` and `/metrics` for the host (docs/hosting.md «Health and metrics»).

Both are answered only to this machine (the client address is loopback) or to a logged-in
administrator; anyone else gets 404, as if they did not exist. The client address is the one
Flask sees after the `TRUST_PROXY` proxies it trusts (werkzeug's ProxyFix). A proxy on this
machine that Svara does not trust (`TRUST_PROXY = 0`) makes every visitor look like
127.0.0.1, so then a request carrying a forwarding header is never taken as local.

`/metrics` is app/metrics.py's counters (which every layer pushes into) and the app's states
read at each scrape by `AppCollector` here, above the features it reads.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, request
from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import event, text

from . import metrics

bp = Blueprint("health", __name__)

#: Headers a reverse proxy adds; without a trusted proxy they mean one we do not trust.
FORWARDING = ("X-Forwarded-For", "Forwarded", "X-Real-IP")


class AppCollector(Collector):
    """The app's states, read at each scrape: connections, live tables, the voice SFU."""

    def __init__(self, app: Flask):
        self.app = app

    def collect(self) -> Iterator[Metric]:
        from app.auth.presence import EXTENSION as PRESENCE
        from app.tables import EXTENSION as TABLES
        from app.voice.sockets import EXTENSION as VOICE

        extensions = self.app.extensions
        yield GaugeMetricFamily(
            "svara_players_connected",
            "Players with a live connection to this process",
            value=extensions[PRESENCE].connected_count(),
        )
        live = extensions[TABLES].live()
        yield GaugeMetricFamily(
            "svara_tables_open", "Open tables played by this process", value=len(live)
        )
        yield GaugeMetricFamily(
            "svara_players_seated",
            "Seats taken at the tables of this process",
            value=sum(table.occupancy()[0] for table in live),
        )
        yield from self._voice(extensions.get(VOICE))

    def _voice(self, hub: Any) -> Iterator[Metric]:
        stats = voice_stats(hub)
        yield GaugeMetricFamily(
            "svara_voice_up", "1 when the voice SFU answers", value=int(stats is not None)
        )
        if stats is None:
            return
        yield GaugeMetricFamily(
            "svara_voice_rooms", "Tables with voice in the SFU", value=stats["rooms"]
        )
        yield GaugeMetricFamily(
            "svara_voice_peers", "Browsers connected to the SFU", value=stats["peers"]
        )
        yield CounterMetricFamily(
            "svara_voice_forwarded_packets",
            "Audio packets the SFU forwarded into listeners' streams since it started",
            value=stats["forwarded"],
        )


def voice_stats(hub: Any) -> dict[str, int] | None:
    """The SFU's counts (rtc/sfu.py `stats`), or None when voice is off or down — or hung:
    an SFU that does not answer within STATS_TIMEOUT is down to a monitor."""
    from app.voice.client import STATS_TIMEOUT, VoiceError, VoiceUnavailable

    if hub is None or hub.supervisor is None:
        return None
    try:
        return hub.supervisor.client.request("stats", within=STATS_TIMEOUT)
    except (VoiceUnavailable, VoiceError):
        return None


def init_metrics(app: Flask) -> None:
    """Count the database's errors and read the app's states for `/metrics`."""
    from app.models.db import EXTENSION as DB

    event.listen(
        app.extensions[DB].engine, "handle_error", lambda _context: metrics.DATABASE_ERRORS.inc()
    )
    registry = CollectorRegistry(auto_describe=True)
    registry.register(AppCollector(app))
    app.extensions["svara.metrics"] = registry


def exposition(app: Flask) -> bytes:
    """Prometheus's text format: the process's counters and the app's states."""
    from prometheus_client import generate_latest

    return generate_latest(metrics.REGISTRY) + generate_latest(app.extensions["svara.metrics"])


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
        body["voice"] = "ok" if voice_stats(hub) is not None else "down"
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
    return Response(exposition(app), content_type=CONTENT_TYPE_LATEST)


def init_app(app: Flask) -> None:
    init_metrics(app)
    app.register_blueprint(bp)
