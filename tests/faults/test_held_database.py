"""Another process holds the database's write lock (`BEGIN IMMEDIATE`, as a long admin
command or a backup tool would): only the work that needs to write waits (docs/performance.md,
app/models/db.py). A decision whose write waits is applied once the lock is gone, within the
busy timeout (30 s by default), whole; meanwhile /healthz answers at its usual pace and the
gathering timers of other tables (C-1.3: one more period) fire on time and a visitor's pages
(they only read) open at their usual pace — all measured against the same server before
the lock was taken.

With a short busy timeout, decisions at two tables that wait together (the second behind
the first in this process's queue of writes) are each refused within that one timeout, not
one after the other, and change nothing; a chat line at a third table is shown at once and
stored once the lock is gone (app/chat.py).
"""

from __future__ import annotations

import random
import re
import signal
import sqlite3
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import requests
from sqlmodel import select

from app.models import ChatLine
from tests.server.conftest import (
    ASYNC_MODES,
    WAIT,
    Browser,
    Server,
    start_server,
    stopped,
    unique_name,
)
from tests.server.tablekit import (
    Player,
    books,
    choose,
    database,
    decide,
    everyone,
    new_table,
    seat,
    whose_turn,
)

RATIO = 10  # /healthz: the median answer while locked, against the median before
PERIOD = 1.5  # a gathering's period while locked may be this much longer than before
TABLES = 3
SAMPLES = 7
BUSY = 3.0  # seconds: the busy timeout of the refusal test's server
REFUSED = re.compile("chat lines not stored yet")  # app/chat.py, once per outage
STORED_AGAIN = re.compile("chat lines stored again")
STOPPING = re.compile("chat lines to store before the stop: 1 ")


@pytest.fixture(params=ASYNC_MODES)
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    """Timers at 1/25: a gathering of 150 s takes 6 s, a turn of 600 s 24 s."""
    running = start_server(tmp_path, request.param, SVARA_TIMER_SCALE="0.04")
    with stopped(running):
        yield running


@pytest.fixture(params=ASYNC_MODES)
def impatient(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    """A server whose writes wait BUSY seconds for a lock, then fail."""
    running = start_server(tmp_path, request.param, SVARA_DB_BUSY_TIMEOUT=str(BUSY))
    with stopped(running):
        yield running


@contextmanager
def held(server: Server) -> Iterator[None]:
    """Another process holds the write lock (`BEGIN IMMEDIATE`, as a backup tool would)."""
    other = sqlite3.connect(server.instance / "svara.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


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


def stored_chat(server: Server, table: int) -> list[str]:
    db = database(server)
    with db.reading() as s:
        found = [row.text for row in s.exec(select(ChatLine).where(ChatLine.table_id == table))]
    db.dispose()
    return found


def test_waiting_decisions_are_refused_within_one_timeout_and_chat_goes_on(
    impatient: Server,
) -> None:
    server = impatient
    seated = []
    for _ in range(2):
        players = seat(server, new_table(server, "classic"), 2, 1000, names=("Иван", "Ёж"))
        for p in players:
            assert p.call("table:ready") == {"ok": True}
        seated.append(players)
    actors = [whose_turn(players) for players in seated]
    before = [actor.state for actor in actors]
    rng = random.Random(7)
    decisions = [choose(actor.hand["legal"], rng) for actor in actors]  # type: ignore[index]
    talk = new_table(server, "classic")
    maria, zoya = Player(server, talk, unique_name("Мария")), Player(server, talk)
    newcomer = Player(server, talk, unique_name("Боян"))  # registering writes: before the lock
    maria.join()
    zoya.join()
    line = "Бэкап идёт — играем дальше 🙂"
    with held(server):
        acts = [Decision(a, d) for a, d in zip(actors, decisions, strict=True)]
        for act in acts:
            act.start()
        start = time.perf_counter()
        assert maria.call("table:chat", text=line) == {"ok": True}
        assert zoya.event("table:chat")["text"] == line
        chatted = time.perf_counter() - start
        shown = newcomer.join()["chat"]
        assert [x["text"] for x in shown] == [line]  # not stored yet, shown all the same
        assert stored_chat(server, talk) == []
        for act in acts:
            act.join(WAIT)
        # Both refused within one busy timeout, with the reason, while the lock was held.
        print(f"chat {chatted:.3f} s; refused after {[round(a.took, 2) for a in acts]} s")
        for act in acts:
            assert act.reply["ok"] is False and act.reply["code"] == "busy", act.reply
            assert act.took <= 1.5 * BUSY, [a.took for a in acts]
        assert chatted < BUSY / 3, chatted
        for actor, was in zip(actors, before, strict=True):  # nothing changed
            state = actor.join()["state"]
            assert (state["version"], state["history"]) == (was["version"], was["history"])
        server.wait_for(REFUSED)  # the chat's writer too was refused within the timeout
    for players, actor, decision in zip(seated, actors, decisions, strict=True):
        assert decide(players, actor, **decision) == {"ok": True}
    server.wait_for(STORED_AGAIN)  # it tries again within a second (app/chat.py RETRY)
    assert stored_chat(server, talk) == [line]
    found = books(server)
    assert found.ok, found.problems
    assert found.granted == found.balances + found.in_play == 4000
    for p in [maria, zoya, newcomer, *[p for players in seated for p in players]]:
        p.close()


def test_a_normal_stop_stores_the_chat_lines_still_on_their_way(impatient: Server) -> None:
    """systemd stops the server (SIGTERM) while a backup holds the database and «Мария»'s
    line waits for it: the stop waits for the line (app/chat.py `flush_all`), which is
    stored once the lock is gone, and the server then exits by itself."""
    server = impatient
    talk = new_table(server, "classic")
    maria, yozh = Player(server, talk, unique_name("Мария")), Player(server, talk)
    maria.join()
    yozh.join()
    line = "Всем пока, до пятницы! 👋"
    with held(server):
        assert maria.call("table:chat", text=line) == {"ok": True}
        assert yozh.event("table:chat")["text"] == line
        assert stored_chat(server, talk) == []
        server.process.send_signal(signal.SIGTERM)
        server.wait_for(STOPPING)  # the stop waits for the line: now the lock goes
    assert server.process.wait(timeout=WAIT) == 0, "".join(server.output)
    assert stored_chat(server, talk) == [line]
    for p in (maria, yozh):
        p.close()
