"""The load generator counts what the figures say it counts (docs/performance.md, «The load
generator's own lateness»): a bot's actions only while the play is timed (the warm-up's were
counted too), and a worker's own loop lateness when that loop is held. A bot keeps nothing of
a state but what it decides from («4,000 players: the load generator's collections, and the
steady state»).
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from typing import Any

from benchmarks.loadgen import (
    Bot,
    Result,
    Sample,
    Seen,
    TableRun,
    Tally,
    _own_lateness,
    by_minute,
)

#: A table in play where «Иван» may act: the bot picks its one legal option.
PLAYING = {
    "version": 7,
    "phase": "playing",
    "hand": {"id": 1, "legal": [{"do": "call"}], "awaiting": ["Иван"]},
    "you": {"can": []},
}


def _bot(timing: bool) -> Bot:
    run = TableRun(Tally(), pace=0.0, rng=random.Random(1), timing=timing)
    bot = Bot("http://127.0.0.1:9", table=3, name="Иван", cookie="", shared=run)
    sent: list[tuple[str, dict[str, Any]]] = []

    async def call(event: str, data: dict[str, Any], timeout: float) -> dict[str, Any]:
        sent.append((event, data))
        if len(sent) == 1:
            bot._keep({**PLAYING, "version": 8, "hand": {**PLAYING["hand"], "awaiting": []}})
        return {"ok": True}

    bot.sio.call = call  # type: ignore[method-assign]
    bot._keep(PLAYING)
    return bot


def test_an_action_is_counted_while_the_play_is_timed_and_not_in_the_warm_up() -> None:
    for timing, counted in ((False, 0), (True, 1)):
        bot = _bot(timing)
        asyncio.run(bot._decide())
        assert bot.shared.tally.actions == counted, timing
        assert bot.shared.sent is not None and bot.shared.sent.version == 7


def test_a_worker_held_for_a_while_reports_its_own_loop_that_late() -> None:
    late: list[float] = []

    async def held() -> None:
        watch = asyncio.get_running_loop().create_task(_own_lateness(late, every=0.01))
        while not late:  # the watch's first wake-up, on time
            await asyncio.sleep(0)
        busy_until = time.monotonic() + 0.3  # the worker busy with its clients, not waiting
        while time.monotonic() < busy_until:
            pass
        while len(late) < 2:
            await asyncio.sleep(0)
        watch.cancel()

    asyncio.run(held())
    assert max(late) >= 0.25, late


def test_a_bot_keeps_only_what_it_decides_from_and_decides_the_same() -> None:
    bot = _bot(timing=True)
    state = {**PLAYING, "version": 9, "seats": [{"name": "Иван"}], "history": [{"do": "call"}]}
    held = sys.getrefcount(state), sys.getrefcount(state["hand"])
    bot._keep(state)
    # Nothing of the message is held but its options: it dies young (reference counting).
    assert (sys.getrefcount(state), sys.getrefcount(state["hand"])) == held
    assert bot.seen == Seen(9, True, [{"do": "call"}], False)
    assert bot._decision() == ("table:act", {"version": 9, "do": "call"})
    # Not awaited: no options; between hands, «Готов» when the state offers it.
    bot._keep({**state, "version": 10, "hand": {**state["hand"], "awaiting": ["Ёж"]}})
    assert bot.seen is not None and bot.seen.options == [] and bot._decision() is None
    bot._keep({**state, "version": 11, "phase": "waiting", "you": {"can": ["ready", "stand"]}})
    assert bot._decision() == ("table:ready", {})
    bot._keep({**state, "version": 10})  # an older state changes nothing
    assert bot.seen is not None and bot.seen.version == 11


def test_a_soaks_minutes_each_show_their_own_tail() -> None:
    """`by_minute` puts each latency in the minute it was measured in, by the sampler's
    clock: a pause in minute 1 shows there, not in minute 0."""
    start = 1000.0
    samples = [Sample(start + second, 50.0, 2**30, 10) for second in range(0, 120, 10)]
    latencies = [0.01] * 200 + [0.02] * 199 + [2.0]
    latency_at = [start + 30] * 200 + [start + 90] * 200
    result = Result(1, 8, 2.0, 120.0, 8, 0, 0, latencies, {}, samples, 0.0, latency_at=latency_at)
    minutes = by_minute(result)
    assert [m["minute"] for m in minutes] == [0, 1]
    assert (minutes[0]["p99_ms"], minutes[0]["max_ms"]) == (10.0, 10.0)
    assert minutes[1]["max_ms"] == 2000.0
    assert minutes[1]["p99_ms"] == 20.0  # one pause in 200 is above the 99th percentile
