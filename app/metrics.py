"""The counters a host's Prometheus reads at `/metrics` (docs/hosting.md «Health and metrics»).

The counters and the histogram are the process's own (`REGISTRY`): the layers that already
refuse or time things push into them (a refusal in app/protocol.py and app/tables/sockets.py,
a socket closed in app/protocol.py, a hand begun in app/tables/store.py, an action in
app/tables/sockets.py, a database error through SQLAlchemy's `handle_error` event, listened to
by app/health.py). This module imports nothing of the app: everything may count here. What
is a state rather than an event (players connected, tables open, the SFU's peers) is read
from the app when Prometheus asks, by app/health.py's `AppCollector`; nothing has to keep
those numbers up to date.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics

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
LOOP_LATE = Histogram(
    "svara_event_loop_late_seconds",
    "How late the server's event loop wakes a timer of LOOP_PERIOD: every table waits as long",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
    registry=REGISTRY,
)
#: Seconds between two looks at the event loop (`watch_the_loop`).
LOOP_PERIOD = 0.1
DATABASE_ERRORS = Counter(
    "svara_database_errors", "Errors the database driver raised", registry=REGISTRY
)
SOCKETS_CLOSED = Counter(
    "svara_sockets_closed",
    "Socket.IO connections closed (what they leave is what a full collection frees)",
    registry=REGISTRY,
)
#: The code counted for a refusal of the event layer itself (unknown event, bad payload).
PROTOCOL = "protocol"


def refused(code: str | None) -> None:
    """Count one refused client event."""
    REFUSED.labels(code=code or PROTOCOL).inc()


def sockets_closed() -> float:
    """How many Socket.IO connections closed since the process started (cli/serve.py
    `collect_when_grown` reads it)."""
    (counter,) = SOCKETS_CLOSED.collect()
    return counter.samples[0].value


def watch_the_loop(sleep: Callable[[float], object], clock: Callable[[], float]) -> None:
    """Forever: sleep LOOP_PERIOD on the event loop and count how late it woke (LOOP_LATE).
    Under eventlet one thread serves every table, so a late wake-up is a wait every player
    had: the server's own share of a slow update, apart from the network and the client's."""
    while True:
        asked = clock()
        sleep(LOOP_PERIOD)
        LOOP_LATE.observe(max(0.0, clock() - asked - LOOP_PERIOD))
