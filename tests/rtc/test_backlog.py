"""An overloaded SFU says so: an event loop that runs late (the received packets wait in
the sockets, since they are forwarded as the loop reads them) is logged, once per interval."""

from __future__ import annotations

import asyncio
import logging

import pytest

from rtc.ice import IceConfig
from rtc.sfu import LATE, LEVELS_INTERVAL, Sfu


def run_levels(stalls: list[float]) -> None:
    """Run the levels ticks while the loop is held up for each of `stalls` (seconds) in turn,
    each stall starting right after a tick and followed by the next tick. A stall is the
    loop's clock moved on by that much at once, as a busy loop finds it when it next looks."""

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        clock, skipped = loop.time, [0.0]
        loop.time = lambda: clock() + skipped[0]  # type: ignore[method-assign]
        sfu = Sfu(IceConfig(), lambda event: None)
        ticked = asyncio.Event()
        send_levels = sfu.send_levels

        def tick() -> None:
            send_levels()
            ticked.set()

        sfu.send_levels = tick  # type: ignore[method-assign]
        ticks = asyncio.create_task(sfu.run_levels())
        for stall in stalls:
            ticked.clear()
            await ticked.wait()  # a tick ran: the next is due LEVELS_INTERVAL from now
            skipped[0] += stall  # the loop was busy that long: no tick could run
            ticked.clear()
            await ticked.wait()  # the next tick ran, late by the stall less the interval
        ticks.cancel()

    asyncio.run(scenario())


def test_a_late_event_loop_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rtc"):
        run_levels([LEVELS_INTERVAL + LATE + 0.2] * 2)
    lines = [r.getMessage() for r in caplog.records if "overloaded" in r.getMessage()]
    assert len(lines) == 1  # once per interval, not once per late tick
    assert "event loop ran" in lines[0]


def test_keeping_up_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rtc"):
        run_levels([LEVELS_INTERVAL / 2] * 2)
    assert not [r for r in caplog.records if "overloaded" in r.getMessage()]
