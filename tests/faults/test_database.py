"""The database refuses a write (docs/performance.md): locked by another process, or full.

The server runs with `SVARA_DB_BUSY_TIMEOUT=0.5`, so a write waits half a second for a lock
before it fails (the default waits 30 s). While another connection holds SQLite's write lock,
or while the server process may not write a byte more to its files (RLIMIT_FSIZE, what a
full disk looks like to SQLite), a decision in the hand is refused with an error
(`code: server`) and changes nothing; once the database takes writes again the same
decision is accepted and the hand is played to its end with the books balanced.
"""

from __future__ import annotations

import random
import resource
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import psutil
import pytest

from tests.server.conftest import Server, start_server, stopped
from tests.server.tablekit import (
    SCALE,
    books,
    choose,
    decide,
    everyone,
    new_table,
    play_hand,
    seat,
    whose_turn,
)


@contextmanager
def locked(server: Server) -> Iterator[None]:
    """Another process's connection holding the write lock (as the admin CLI might)."""
    other = sqlite3.connect(server.instance / "svara.db", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


@contextmanager
def full(server: Server) -> Iterator[None]:
    """The server may not write at any offset of any file: every write fails (EFBIG)."""
    process = psutil.Process(server.process.pid)
    before = process.rlimit(psutil.RLIMIT_FSIZE)
    process.rlimit(psutil.RLIMIT_FSIZE, (1, before[1]))
    try:
        yield
    finally:
        process.rlimit(psutil.RLIMIT_FSIZE, before)


FAULTS: dict[str, Callable[[Server], AbstractContextManager[None]]] = {
    "locked": locked,
    "full": full,
}
# docs/protocol.md: a lock held by another process is `busy` (it passes), anything else `server`.
CODES = {"locked": "busy", "full": "server"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A server (fast timers) whose writes wait half a second for a lock, then fail."""
    running = start_server(
        tmp_path, "eventlet", SVARA_TIMER_SCALE=str(SCALE), SVARA_DB_BUSY_TIMEOUT="0.5"
    )
    with stopped(running):
        yield running


@pytest.mark.parametrize("fault", FAULTS)
def test_a_refused_write_refuses_the_action_and_the_table_goes_on(
    server: Server, fault: str
) -> None:
    table = new_table(server, "classic")
    players = seat(server, table, 3, 1000)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    rng = random.Random(3)
    actor = whose_turn(players)
    decision = choose(actor.hand["legal"], rng)  # type: ignore[index]
    before = actor.state
    with FAULTS[fault](server):
        reply = actor.act(**decision)
        assert reply["ok"] is False and reply["code"] == CODES[fault], reply
        error = actor.event("error")
        assert error["code"] == CODES[fault] and error["event"] == "table:act"
        # Nothing changed: the same version, the same hand (still readable, WAL).
        state = actor.join()["state"]
        assert state["version"] == before["version"]
        assert state["history"] == before["history"]
    assert decide(players, actor, **decision) == {"ok": True}
    everyone(players, lambda s: len(s["history"]) == len(before["history"]) + 1)
    play_hand(players, rng)
    found = books(server)
    assert found.ok, found.problems
    assert found.granted == found.balances + found.in_play == 3000
    assert server.process.poll() is None
    for p in players:
        p.close()


def test_the_full_disk_fixture_really_stops_writes(tmp_path: Path) -> None:
    """The fault above is real: a process under that limit cannot append to a file."""
    path = tmp_path / "f"
    path.write_bytes(b"xx")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1, hard))
    try:
        with pytest.raises(OSError), path.open("ab") as out:
            out.write(b"y")
            out.flush()
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


@pytest.mark.parametrize("fault", FAULTS)
def test_a_refused_write_refuses_the_ready_that_would_start_the_hand(
    server: Server, fault: str
) -> None:
    """The last «Готов» starts the hand (C-1.3); if the hand cannot be saved, that «Готов» is
    refused (`busy` while locked, `server` when full) and not kept, and once the database
    writes again it starts it."""
    table = new_table(server, "classic")
    players = seat(server, table, 2, 1000)
    first, last = players
    assert first.call("table:ready") == {"ok": True}
    last.until(lambda s: s["gathering"] is not None)
    before = last.state
    with FAULTS[fault](server):
        reply = last.call("table:ready")
        assert reply["ok"] is False and reply["code"] == CODES[fault], reply
        assert last.event("error")["event"] == "table:ready"
        state = last.join()["state"]
        assert state["version"] == before["version"] and state["hand"] is None
        assert "ready" in state["you"]["can"]  # his answer was not kept
    assert last.call("table:ready") == {"ok": True}
    everyone(players, lambda s: s["hand"] is not None)
    found = books(server)
    assert found.ok, found.problems
    assert found.granted == found.balances + found.in_play == 2000
    for p in players:
        p.close()


@pytest.mark.parametrize("fault", FAULTS)
def test_a_refused_write_at_the_gathering_deadline_gathers_one_more_period(
    server: Server, fault: str
) -> None:
    """C-1.3: at the deadline the ready players' hand starts; if it cannot be saved, the
    gathering runs one more period (an `extended` event) and starts the hand after it."""
    table = new_table(server, "classic", ready_seconds=50)  # 1 s at SCALE
    players = seat(server, table, 3, 1000)
    first, second, _silent = players
    with FAULTS[fault](server):
        assert first.call("table:ready") == {"ok": True}
        assert second.call("table:ready") == {"ok": True}
        first.until(lambda s: [e for e in s["news"] if e["kind"] == "extended"])
        assert first.state["hand"] is None and first.state["gathering"]["extended"]
    first.until(lambda s: s["hand"] is not None)
    players_in_hand = {p["name"] for p in first.hand["players"]}  # type: ignore[index]
    assert players_in_hand == {first.name, second.name}
    found = books(server)
    assert found.ok, found.problems
    for p in players:
        p.close()
