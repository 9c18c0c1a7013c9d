"""Fixtures for every test folder, and the suite's last check: no process it started is left.

The pytest process becomes a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`): a process
whose parent ends before it — the SFU of a `svara serve` killed with `kill -9` — is
re-parented to pytest instead of init, so every process the suite started stays its
descendant and the check at the session's end (`pytest_sessionfinish`) sees it.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import sys
from collections.abc import Iterator
from multiprocessing import resource_tracker
from pathlib import Path
from types import FrameType

import psutil
import pytest

from app import migrations
from app.models import Database

pytest_plugins = ("pytester",)  # tests/test_leftovers.py runs a suite of its own
PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
GRACE = 10.0  # seconds a process stopped at the very end may take to exit


def _interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    # A run stopped from outside (CI's timeout, `kill`) ends as an interrupted one: pytest
    # then tears every fixture down, so each stops the servers and browsers it started.
    signal.signal(signal.SIGTERM, _interrupted)
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def leftovers(grace: float = GRACE) -> list[psutil.Process]:
    """The descendants of this process still running after `grace` seconds (zombies are
    reaped: they have ended)."""
    own = _kept_until_exit()
    children = [c for c in psutil.Process().children(recursive=True) if c.pid not in own]
    _, alive = psutil.wait_procs(children, timeout=grace)
    return [p for p in alive if _running(p)]


def _kept_until_exit() -> set[int]:
    """The helpers this interpreter keeps until it exits, not left behind by a test:
    multiprocessing's resource tracker (started by the first semaphore or shared memory a
    test makes; it ends with pytest)."""
    # Not public (next line): multiprocessing names no API for its tracker's process.
    pid = getattr(resource_tracker._resource_tracker, "_pid", None)
    return {pid} if isinstance(pid, int) else set()


def _running(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _describe(process: psutil.Process) -> str:
    try:
        return f"{process.pid}: {' '.join(process.cmdline())[:200]}"
    except psutil.Error:
        return str(process.pid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if a process the tests started outlived them (each is then killed, so
    it does not load the machine further)."""
    left = leftovers()
    if not left:
        return
    lines = [_describe(p) for p in left]
    for process in left:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.kill()
    psutil.wait_procs(left, timeout=GRACE)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = f"{len(lines)} process(es) started by the tests outlived them:\n" + "\n".join(lines)
    if reporter is not None:
        reporter.write_line(message, red=True)
    else:
        print(message, file=sys.stderr)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    """A fresh, migrated SQLite database per test: which rows and ids exist is part of it.
    (A module that shares one database among its tests defines its own `db`.)"""
    database = Database(f"sqlite:///{tmp_path / 'svara.db'}")
    migrations.upgrade(database.engine)
    yield database
    database.dispose()
