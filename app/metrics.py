"""What a host's Prometheus reads at `/metrics` (docs/hosting.md «Health and metrics»).

The counters and the histogram are the process's own (`REGISTRY`): the layers that already
refuse or time things call one of them (a refusal in app/protocol.py and app/tables/sockets.py,
a hand begun in app/tables/store.py, an action in app/tables/sockets.py, a database error
through SQLAlchemy's `handle_error` event). What is a state rather than an event (players
connected, tables open, the SFU's peers) is read from the app when Prometheus asks, by
`AppCollector`; nothing has to keep those numbers up to date.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Flask
from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import event

disable_created_metrics()  # the `_created` series only double the output
REGISTRY = CollectorRegistry(auto_describe=True)

REFUSED = Counter(
    "svara_refused_events",
    "Client events the server refused (docs/protocol.md codes; `protocol` for a bad event)",
    ["code"],
    registry=REGISTRY,
)
HANDS = Counter("svara_hands", "Hands begun, by game", ["game"], registry=REGISTRY)
ACTION_SECONDS = Histogram(
    "svara_action_seconds",
    "From a player's table:act arriving to the table's update sent to everyone",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
DATABASE_ERRORS = Counter(
    "svara_database_errors", "Errors the database driver raised", registry=REGISTRY
)
#: The code counted for a refusal of the event layer itself (unknown event, bad payload).
PROTOCOL = "protocol"


def refused(code: str | None) -> None:
    """Count one refused client event."""
    REFUSED.labels(code=code or PROTOCOL).inc()


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
            value=sum(len(table.members()) for table in live),
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


def init_app(app: Flask) -> None:
    """Count the database's errors and read the app's states for `/metrics`."""
    from app.models.db import EXTENSION as DB

    event.listen(app.extensions[DB].engine, "handle_error", lambda _context: DATABASE_ERRORS.inc())
    registry = CollectorRegistry(auto_describe=True)
    registry.register(AppCollector(app))
    app.extensions["svara.metrics"] = registry


def exposition(app: Flask) -> bytes:
    """Prometheus's text format: the process's counters and the app's states."""
    from prometheus_client import generate_latest

    return generate_latest(REGISTRY) + generate_latest(app.extensions["svara.metrics"])
