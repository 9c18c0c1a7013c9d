"""The 2-minute soak (docs/performance.md, «Soak»; benchmarks/bench_soak.py runs the 30-minute one).

Bots play at four tables for two minutes against one `svara serve`; the server's RSS and
open file descriptors, sampled every second, must be flat: the mean of the last third of
the run within a tolerance of the mean of the first third. Hands must really have been
played, every seat must have stayed connected, and the server printed no traceback.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.loadgen import drift, load_server, prepare, run_tables, sqlite_url

SECONDS = 120
TABLES, SEATS = 4, 6
RSS_GROWTH = 1.10  # the last third's RSS at most 10 % above the first third's
FDS_GROWTH = 2  # … and at most two more open descriptors (a transient socket)


def test_two_minutes_of_play_leave_memory_and_descriptors_flat(tmp_path: Path) -> None:
    with load_server(tmp_path) as server:
        seatings = prepare(sqlite_url(tmp_path), tmp_path, TABLES, SEATS)
        result = run_tables(
            server.url, server.process.pid, seatings, pace=0.3, seconds=SECONDS, workers=1
        )
    assert result.connected == TABLES * SEATS
    assert result.hands >= TABLES * 5, result.summary()
    assert len(result.samples) >= SECONDS * 0.8
    found = drift(result.samples)
    assert found["rss_last_mb"] <= found["rss_first_mb"] * RSS_GROWTH, found
    assert found["fds_last"] <= found["fds_first"] + FDS_GROWTH, found
