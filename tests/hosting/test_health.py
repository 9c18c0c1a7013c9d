"""`/healthz` and `/metrics` of a real `svara serve` (docs/hosting.md «Health and metrics»):
what they say while players play, and to whom they answer."""

from __future__ import annotations

import os
import random
import re
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from app import create_app
from app.voice.client import STATS_TIMEOUT
from tests.server.conftest import PASSWORD, WAIT, Browser, Server, start_server, stopped
from tests.server.tablekit import SCALE, new_table, play_hand, refused, seat
from tests.server.voice.test_serve_voice import sfu_pids

OUTSIDER = {"X-Forwarded-For": "203.0.113.7"}


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus text page, by name and labels."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def until_healthy(url: str) -> requests.Response:
    """/healthz once the SFU (started in the background) answers: polled every 50 ms,
    for WAIT seconds at most."""
    deadline = time.monotonic() + WAIT
    while True:
        answer = requests.get(url + "/healthz", timeout=WAIT)
        if answer.status_code == 200:
            return answer
        assert answer.json()["voice"] == "down", answer.text  # starting, nothing else
        assert time.monotonic() < deadline, f"never healthy: {answer.text}"
        threading.Event().wait(0.05)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server behind one trusted proxy (SVARA_TRUST_PROXY=1), with fast timers."""
    server = start_server(
        tmp_path_factory.mktemp("health"),
        "eventlet",
        SVARA_TIMER_SCALE=str(SCALE),
        SVARA_TRUST_PROXY="1",
        SVARA_VOICE_ADDRESSES='["127.0.0.1"]',
    )
    with stopped(server):
        yield server


def test_healthz_says_database_and_voice_are_fine(served: Server) -> None:
    answer = until_healthy(served.url)
    assert answer.json() == {"ok": True, "database": "ok", "voice": "ok"}


def test_metrics_count_players_tables_hands_actions_and_refusals(served: Server) -> None:
    until_healthy(served.url)
    table = new_table(served, "classic")
    players = seat(served, table, 3, 500)
    try:
        for p in players:
            assert p.call("table:ready") == {"ok": True}
        play_hand(players, random.Random(17))
        refused(players[0], "table:act", {"table": table, "version": 1, "do": "call"}, "stale")
        refused(players[0], "table:nonsense", {})
        page = requests.get(served.url + "/metrics", timeout=WAIT)
        assert page.status_code == 200
        assert page.headers["Content-Type"].startswith("text/plain")
        got = samples(page.text)
        assert got[("svara_players_connected", ())] >= 3
        assert got[("svara_tables_open", ())] >= 1
        assert got[("svara_players_seated", ())] >= 3
        assert got[("svara_hands_total", (("game", "classic"),))] >= 1
        assert got[("svara_action_seconds_count", ())] >= 1
        assert got[("svara_refused_events_total", (("code", "stale"),))] >= 1
        assert got[("svara_refused_events_total", (("code", "protocol"),))] >= 1
        assert got[("svara_database_errors_total", ())] == 0
        assert got[("svara_voice_up", ())] == 1
        assert ("svara_voice_peers", ()) in got and (
            "svara_voice_forwarded_packets_total",
            (),
        ) in got
    finally:
        for p in players:
            p.close()


def closed_sockets(url: str) -> float:
    page = requests.get(url + "/metrics", timeout=WAIT)
    return samples(page.text)[("svara_sockets_closed_total", ())]


def test_a_closed_socket_is_counted(served: Server) -> None:
    """`svara_sockets_closed_total` counts the Socket.IO connections that closed: what they
    leave is what a full collection frees (cli/serve.py `collect_when_grown` reads it)."""
    table = new_table(served, "classic")
    (player,) = seat(served, table, 1, 500)
    before = closed_sockets(served.url)
    player.close()
    deadline = time.monotonic() + WAIT
    while (after := closed_sockets(served.url)) == before:
        assert time.monotonic() < deadline, "the closed socket was never counted"
        threading.Event().wait(0.05)
    assert after == before + 1


def test_a_stalled_event_loop_is_counted_late(served: Server) -> None:
    """The server stopped for STALL seconds (SIGSTOP, SIGCONT): its event loop wakes its
    timer that late, and `/metrics` says so in `svara_event_loop_late_seconds` — the
    server's own share of a slow update, apart from the network's and the clients'."""
    stall, bound = 0.6, ("le", "0.25")

    def beyond() -> float:
        """Wake-ups counted later than `bound` so far."""
        got = samples(requests.get(served.url + "/metrics", timeout=WAIT).text)
        name = "svara_event_loop_late_seconds"
        return got[(f"{name}_count", ())] - got[(f"{name}_bucket", (bound,))]

    until_healthy(served.url)
    before = beyond()
    os.kill(served.process.pid, signal.SIGSTOP)
    try:
        threading.Event().wait(stall)  # the stall itself, not a wait for anything
    finally:
        os.kill(served.process.pid, signal.SIGCONT)
    deadline = time.monotonic() + WAIT
    while beyond() == before:  # the late wake-up is counted once the loop runs again
        assert time.monotonic() < deadline, "the stall was never counted"
        threading.Event().wait(0.05)
    assert beyond() > before


def test_only_this_machine_and_administrators_are_answered(served: Server) -> None:
    """Through the trusted proxy a visitor's own address counts: 404 for him, the page for
    a logged-in administrator."""
    visitor = Browser(served.url)
    visitor.register("Мария")
    for path in ("/healthz", "/metrics"):
        assert requests.get(served.url + path, headers=OUTSIDER, timeout=WAIT).status_code == 404
        assert visitor.http.get(served.url + path, headers=OUTSIDER).status_code == 404
    admin = Browser(served.url)
    line = next(m for line in served.output if (m := PASSWORD.search(line)))
    assert admin.login(*line.groups()).status_code == 302
    assert admin.http.get(served.url + "/metrics", headers=OUTSIDER).status_code == 200
    assert admin.http.get(served.url + "/healthz", headers=OUTSIDER).status_code in (200, 503)


def test_a_proxy_not_trusted_makes_nobody_local(tmp_path: Path) -> None:
    """TRUST_PROXY = 0 and a forwarding header: a proxy on this machine that Svara was not
    told about, so the loopback peer is not taken for this machine."""
    app = create_app({"INSTANCE": tmp_path, "ASYNC_MODE": "threading"})
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP"):
        assert client.get("/healthz", headers={header: "127.0.0.1"}).status_code == 404


def test_an_unreachable_database_is_503(tmp_path: Path) -> None:
    app = create_app({"INSTANCE": tmp_path, "ASYNC_MODE": "threading"})
    app.config["VOICE"] = False
    (tmp_path / "svara.db").unlink()
    (tmp_path / "svara.db").mkdir()  # a folder where the database was: it cannot be opened
    app.extensions["svara.db"].engine.dispose()
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 503
    assert answer.json["database"].startswith("error") and answer.json["ok"] is False
    metrics = app.test_client().get("/metrics").text
    assert re.search(r"^svara_database_errors_total [1-9]", metrics, re.M)


def test_a_hung_voice_server_is_down_at_once(tmp_path: Path) -> None:
    """An SFU that stops answering (frozen, swapped out) is «down» within the stats' bound
    (app/voice/client.py STATS_TIMEOUT), not after the voice requests' 15 s: a monitor's
    check or a proxy's health probe gives up long before that."""
    server = start_server(tmp_path, "eventlet", SVARA_VOICE_ADDRESSES='["127.0.0.1"]')
    with stopped(server):
        until_healthy(server.url)
        (sfu,) = sfu_pids(server)
        os.kill(sfu, signal.SIGSTOP)
        try:
            answer = requests.get(server.url + "/healthz", timeout=STATS_TIMEOUT + 5)
            assert answer.status_code == 503
            assert answer.json() == {"ok": False, "database": "ok", "voice": "down"}
        finally:
            os.kill(sfu, signal.SIGCONT)
        until_healthy(server.url)


def test_a_voice_server_that_cannot_start_is_503(tmp_path: Path) -> None:
    server = start_server(tmp_path, "threading", SVARA_VOICE_PORTS='"9-1"')
    try:
        answer = requests.get(server.url + "/healthz", timeout=WAIT)
        assert answer.status_code == 503
        assert answer.json() == {"ok": False, "database": "ok", "voice": "down"}
    finally:
        server.stop()
