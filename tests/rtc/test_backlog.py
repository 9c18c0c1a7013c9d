"""An overloaded SFU says so: an event loop that runs late (the received packets wait in
the sockets, since they are forwarded as the loop reads them) is logged, once per interval."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from rtc.ice import IceConfig
from rtc.sfu import LATE, LEVELS_INTERVAL, Sfu


def run_levels(stalls: list[float]) -> None:
    """Run the levels ticks while the loop is held up for each of `stalls` (seconds) in turn."""

    async def scenario() -> None:
        sfu = Sfu(IceConfig(), lambda event: None)
        ticks = asyncio.create_task(sfu.run_levels())
        for stall in stalls:
            await asyncio.sleep(LEVELS_INTERVAL / 2)
            time.sleep(stall)  # the loop is busy: no tick can run
            await asyncio.sleep(LEVELS_INTERVAL * 1.5)  # the late tick runs
        ticks.cancel()

    asyncio.run(scenario())


def test_a_late_event_loop_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rtc"):
        run_levels([LATE + 0.2, LATE + 0.2])
    lines = [r.getMessage() for r in caplog.records if "overloaded" in r.getMessage()]
    assert len(lines) == 1  # once per interval, not once per late tick
    assert "event loop ran" in lines[0]


def test_keeping_up_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rtc"):
        run_levels([LATE / 4, LATE / 4])
    assert not [r for r in caplog.records if "overloaded" in r.getMessage()]
