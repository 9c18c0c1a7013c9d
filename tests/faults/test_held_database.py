"""Another process holds the database's write lock (`BEGIN IMMEDIATE`, as a long admin
command or a backup tool would): only the work that needs to write waits (docs/performance.md,
app/models/db.py). A decision whose write waits is applied once the lock is gone, within the
busy timeout (30 s by default), whole; meanwhile /healthz answers at its usual pace and the
gathering timers of other tables (C-1.3: one more period) fire on time and a visitor's pages
(they only read) open at their usual pace — all measured against the same server before
the lock was taken.
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.server.conftest import ASYNC_MODES, WAIT, Browser, Server, start_server, stopped
from tests.server.tablekit import (
    Player,
    books,
    choose,
    everyone,
    new_table,
    seat,
    whose_turn,
)

RATIO = 10  # /healthz: the median answer while locked, against the median before
PERIOD = 1.5  # a gathering's period while locked may be this much longer than before
TABLES = 3
SAMPLES = 7


@pytest.fixture(params=ASYNC_MODES)
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    """Timers at 1/25: a gathering of 150 s takes 6 s, a turn of 600 s 24 s."""
    running = start_server(tmp_path, request.param, SVARA_TIMER_SCALE="0.04")
    with stopped(running):
        yield running


def healthz(server: Server) -> float:
    """How long one /healthz took."""
    start = time.perf_counter()
    answer = requests.get(server.url + "/healthz", timeout=WAIT)
    took = time.perf_counter() - start
    assert answer.status_code == 200 and answer.json()["database"] == "ok", answer.text
    return took


def pages(visitor: Browser, table: int) -> float:
    """How long a logged-in visitor's lobby, hand list and table page took together: each
    reads the database (his account first), none writes."""
    start = time.perf_counter()
    for path in ("/", "/hands", f"/table/{table}"):
        answer = visitor.http.get(visitor.url + path, timeout=WAIT, allow_redirects=False)
        assert answer.status_code == 200, (path, answer.status_code)
    return time.perf_counter() - start


def tables(server: Server) -> list[Player]:
    """Tables of «Мария» and «Ёж» (C-1.3: 150 s to gather, 6 s here)."""
    found = []
    for _ in range(TABLES):
        table = new_table(server, "classic", ready_seconds=150, turn_seconds=600)
        maria, _yozh = seat(server, table, 2, 100, names=("Мария", "Ёж"))
        found.append(maria)
    return found


def gather(players: list[Player]) -> None:
    """«Мария» says «Готов» at each table: its gathering's period starts."""
    for maria in players:
        assert maria.call("table:ready") == {"ok": True}
    for maria in players:
        maria.until(lambda s: s["gathering"] is not None)


def periods(players: list[Player]) -> float:
    """The mean time, by the server's clock, from the gathering's start to its extension
    (C-1.3: one more period)."""
    took = []
    for maria in players:
        opened = maria.state
        extended = maria.until(lambda s: s["gathering"] and s["gathering"]["extended"] and s)
        took.append(extended["now"] - opened["now"])
    return statistics.fmean(took)


class Decision(threading.Thread):
    """«Иван»'s decision, sent in its own thread: its ack waits for the database."""

    def __init__(self, player: Player, decision: dict[str, Any]) -> None:
        super().__init__(daemon=True)
        self.player, self.decision = player, decision
        self.reply: Any = None
        self.took = float("inf")

    def run(self) -> None:
        start = time.perf_counter()
        self.reply = self.player.act(**self.decision)
        self.took = time.perf_counter() - start


def test_a_held_write_lock_delays_only_the_write(server: Server) -> None:
    table = new_table(server, "classic", turn_seconds=600, ready_seconds=600)
    players = seat(server, table, 2, 1000, names=("Иван", "Пётр"))
    before_lock, during_lock = tables(server), tables(server)
    healthy = [healthz(server) for _ in range(SAMPLES)]
    visitor = Browser(server.url)
    visitor.register("Зоя")
    browsed = [pages(visitor, table) for _ in range(SAMPLES)]
    gather(before_lock)
    usual = periods(before_lock)

    for p in players:
        assert p.call("table:ready") == {"ok": True}
    actor = whose_turn(players)  # his turn lasts 24 s: longer than what follows
    before = actor.state
    decision = choose(actor.hand["legal"], random.Random(5))  # type: ignore[index]
    gather(during_lock)  # their periods end while the lock is held
    other = sqlite3.connect(server.instance / "svara.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    taken = time.perf_counter()
    try:
        act = Decision(actor, decision)
        act.start()
        locked = [healthz(server) for _ in range(SAMPLES)]
        held = periods(during_lock)
        locked += [healthz(server) for _ in range(SAMPLES)]
        browsed_locked = [pages(visitor, table) for _ in range(SAMPLES)]
        assert act.is_alive(), f"the decision did not wait for the lock: {act.reply}"
    finally:
        other.execute("ROLLBACK")
        other.close()
        kept = time.perf_counter() - taken
    act.join(WAIT)
    print(
        f"periods {usual:.3f} s, {held:.3f} s locked; /healthz {statistics.median(healthy):.4f}"
        f" s, {statistics.median(locked):.4f} s locked; pages {statistics.median(browsed):.4f} s,"
        f" {statistics.median(browsed_locked):.4f} s locked; held {kept:.2f} s,"
        f" act {act.took:.2f} s"
    )
    assert act.reply == {"ok": True}, act.reply
    assert held <= PERIOD * usual, (held, usual)
    assert statistics.median(locked) <= RATIO * statistics.median(healthy), (locked, healthy)
    # Pages only read: they do not queue behind the waiting write (app/models/db.py).
    assert statistics.median(browsed_locked) <= RATIO * statistics.median(browsed), (
        browsed_locked,
        browsed,
    )
    # Applied whole: one more action for everyone, and the books balance.
    everyone(players, lambda s: len(s["history"]) == len(before["history"]) + 1)
    found = books(server)
    assert found.ok, found.problems
    assert found.granted == found.balances + found.in_play
    for p in [*players, *before_lock, *during_lock]:
        p.close()
