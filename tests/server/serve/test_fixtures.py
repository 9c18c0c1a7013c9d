"""The test servers clean up (tests/server/conftest.py): a server that fails to start, and
one killed with `kill -9`, leave no process behind — neither `svara serve` nor its SFU."""

from __future__ import annotations

import re
import signal
import threading
from pathlib import Path

import psutil
import pytest

from tests.conftest import leftovers

from .. import conftest
from ..conftest import WAIT, Server, start_server
from ..voice.test_serve_voice import VOICE_ENV


def with_sfu(server: Server) -> list[psutil.Process]:
    """The server and its SFU child, once the SFU runs (bounded by WAIT)."""
    main = psutil.Process(server.process.pid)
    pause = threading.Event()
    for _ in range(int(WAIT / 0.05)):
        sfu = [p for p in main.children() if p.cmdline()[1:3] == ["-m", "rtc"]]
        if sfu:
            return [main, *sfu]
        pause.wait(0.05)  # the server starts its SFU in a background task
    raise AssertionError("the server started no SFU")


def test_a_server_that_does_not_start_in_time_is_stopped_with_its_sfu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server really starts (and starts its SFU), but its «listening» line is not seen
    in time, as under a loaded machine: `start_server` fails, and both processes end."""
    started: list[psutil.Process] = []
    listening = conftest.Server.wait_for

    def timed_out(server: Server, pattern: re.Pattern[str], quiet: float = WAIT) -> re.Match[str]:
        listening(server, pattern, quiet)
        started.extend(with_sfu(server))
        raise AssertionError("server printed no 'listening' (a time-out under load)")

    monkeypatch.setattr(conftest.Server, "wait_for", timed_out)
    with pytest.raises(AssertionError, match="time-out under load"):
        start_server(tmp_path / "instance", "eventlet", **VOICE_ENV)
    assert len(started) == 2
    _, alive = psutil.wait_procs(started, timeout=WAIT)
    assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]


def test_a_server_killed_hard_leaves_no_sfu(tmp_path: Path) -> None:
    """`kill -9` ends `svara serve` without its shutdown; `stop` still ends its SFU (its
    process group), and the suite's final check would see any survivor (tests/conftest.py)."""
    server = start_server(tmp_path / "instance", "eventlet", **VOICE_ENV)
    try:
        processes = with_sfu(server)
    finally:
        server.stop(signal.SIGKILL)
    _, alive = psutil.wait_procs(processes, timeout=WAIT)
    assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]
    assert not [p for p in leftovers(0) if p.pid in {q.pid for q in processes}]
