"""A voice SFU that stops answering (SIGSTOP: hung, deadlocked, swapped out) costs only the
voice (docs/architecture.md «A live table», docs/voice-protocol.md).

While it is stopped, «Иван» — in the voice at his table — stands up, and «Ёж» — in the voice
at another — lets his turn run out, which stands him up when the hand ends (C-1.7's
Decision). Both free a seat and so end a voice; the SFU's `leave` is queued, never waited
for under a table's lock nor in a timer. Meanwhile a third table plays on: its rounds (an
ack, the bot's timers, the states) keep the pace they had before the SFU stopped, measured
in the same run. The supervisor tells a busy SFU (a few pings missed) from a hung one
(silent for `HANG_AFTER`): it keeps the first and replaces the second, and the pages
re-join as after a crash.
"""

from __future__ import annotations

import os
import random
import re
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import ASYNC_MODES, Server, start_server, stopped, unique_name
from tests.server.tablekit import Player, choose, new_table, seat
from tests.server.voice.test_serve_voice import VOICE_ENV, join_voice, sfu_pids

from .pace import Pace

#: A round during the fault may take this many times the mean round before it.
RATIO = 5
ROUNDS = 12
#: The rules' timers run at a tenth: «Ёж»'s 10 s lapse in 1 s, while the pace player's 30 s
#: turn (his practice table's) is 3 s, more than a busy machine stalls this test's process
#: (at a fiftieth, 0.6 s, his own lapse once stood him up mid-test).
TIMER_SCALE = 0.1
REPLACED = 30  # seconds: a hung SFU is replaced within this (docs/voice-protocol.md)
MISSED = re.compile(r"voice SFU missed (\d+) ping")
ANSWERS = re.compile(r"voice SFU answers again")


@pytest.fixture(params=ASYNC_MODES)
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    running = start_server(
        tmp_path,
        request.param,
        SVARA_TIMER_SCALE=str(TIMER_SCALE),
        SVARA_BOT_THINK="0",
        **VOICE_ENV,
    )
    with stopped(running):
        yield running


def sfu(server: Server) -> int:
    (pid,) = sfu_pids(server)
    return pid


def seated_at(player: Player, name: str) -> bool:
    return any(s and s["name"] == name for s in player.state["seats"])


class Timed(threading.Thread):
    """A socket call answered in its own thread, with how long its ack took."""

    def __init__(self, player: Player, event: str) -> None:
        super().__init__(daemon=True)
        self.player, self.event_name = player, event
        self.reply: Any = None
        self.took = float("inf")

    def run(self) -> None:
        start = time.perf_counter()
        self.reply = self.player.call(self.event_name)
        self.took = time.perf_counter() - start


def test_a_stopped_sfu_holds_up_no_table(server: Server) -> None:
    # «Иван» sits in the voice of his table, between hands.
    first = new_table(server, "classic")
    ivan, maria = seat(server, first, 2, 1000, names=("Иван", "Мария"))
    assert join_voice(ivan.client, first)["ok"]
    # «Ёж», in the voice at another table, will let his turn run out (1 s here).
    second = new_table(server, "classic", turn_seconds=10, ready_seconds=600)
    yozh, petr = seat(server, second, 2, 1000, names=("Ёж", "Пётр"))
    assert join_voice(yozh.client, second)["ok"]
    pace = Pace(server)
    pace.play(ROUNDS)
    before = pace.since(0)

    for p in (yozh, petr):
        assert p.call("table:ready") == {"ok": True}
    petr.until(lambda s: s["phase"] == "playing" and s["hand"]["awaiting"])
    if petr.my_turn():  # «Пётр» answers at once (not a fold), and it is Ёж's turn
        legal = [o for o in petr.hand["legal"] if o["do"] != "fold"]  # type: ignore[index]
        assert petr.act(**choose(legal, random.Random(1))) == {"ok": True}
    turn = petr.until(lambda s: s["hand"]["awaiting"] == [yozh.name] and s["turn"])
    stopped_at = sfu(server)
    os.kill(stopped_at, signal.SIGSTOP)
    try:
        stand = Timed(ivan, "table:stand")
        stand.start()
        start = len(pace.rounds)
        freed = None
        for _ in range(400):
            pace.round()
            petr.drain()
            if freed is None and not seated_at(petr, yozh.name):
                freed = time.time() - turn["deadline"]  # how late his lapse stood him up
            if freed is not None and not stand.is_alive() and len(pace.rounds) - start >= ROUNDS:
                break
        during = pace.since(start)
        stand.join()
    finally:
        os.kill(stopped_at, signal.SIGCONT)
    print(f"rounds: {before:.3f} s, {during:.3f} s stopped; stand {stand.took:.3f} s; late {freed}")
    assert stand.reply == {"ok": True}
    assert freed is not None
    assert during <= RATIO * before, (during, before)
    assert stand.took <= RATIO * before, (stand.took, before)
    assert freed <= 2 * RATIO * before, (freed, before)  # found after a round: twice
    maria.until(lambda s: not seated_at(maria, ivan.name))
    assert sfu(server) == stopped_at  # stopped for less than HANG_AFTER: kept
    for p in (ivan, maria, yozh, petr, pace.person):
        p.close()


def test_a_busy_sfu_is_kept_and_a_hung_one_replaced(server: Server) -> None:
    table = new_table(server, "classic")
    name = unique_name("Мария")
    (maria,) = seat(server, table, 1, 10, names=(name,))
    assert join_voice(maria.client, table)["ok"]
    busy = sfu(server)
    os.kill(busy, signal.SIGSTOP)
    try:
        while int(server.wait_for(MISSED).group(1)) < 2:  # several pings in a row
            pass
    finally:
        os.kill(busy, signal.SIGCONT)
    server.wait_for(ANSWERS)
    assert sfu(server) == busy
    assert maria.call("voice:mic", on=False) == {"ok": True}

    os.kill(busy, signal.SIGSTOP)
    start = time.monotonic()
    assert maria.event("voice:restart", timeout=REPLACED) == {"table": table}
    took = time.monotonic() - start
    assert took < REPLACED, took
    assert busy not in sfu_pids(server)  # killed, stopped as it was
    again = join_voice(maria.client, table)
    assert again["ok"] and again["mic"] is False  # re-joined with her toggle, as after a crash
    maria.close()
