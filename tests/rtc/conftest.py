"""Fixtures: the real SFU process on loopback, and loopback-only ICE for the test clients."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rtc.ice import offer_addresses

PORTS = range(47000, 47040)


@dataclass(frozen=True)
class SfuProcess:
    """A running `python -m rtc` and where to reach it."""

    process: subprocess.Popen[str]
    socket: Path


def start_sfu(folder: Path, *extra: str) -> SfuProcess:
    """Start the SFU offering only 127.0.0.1 and wait for its 'ready' line."""
    socket_path = folder / "voice.sock"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rtc",
            "--socket",
            str(socket_path),
            "--address",
            "127.0.0.1",
            "--watch-stdin",
            *extra,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    return SfuProcess(process, socket_path)


def stop_sfu(sfu: SfuProcess) -> int:
    """Close its stdin (as if the web process died) and return its exit code."""
    assert sfu.process.stdin is not None
    sfu.process.stdin.close()
    return sfu.process.wait(timeout=20)


@pytest.fixture
def sfu(tmp_path: Path) -> Iterator[SfuProcess]:
    """An SFU process with a UDP port range, for one test."""
    running = start_sfu(tmp_path, "--ports", f"{PORTS.start}-{PORTS.stop - 1}")
    try:
        yield running
    finally:
        assert stop_sfu(running) == 0


@pytest.fixture(autouse=True)
def loopback_clients() -> Iterator[None]:
    """The test's own aiortc clients gather candidates on loopback only."""
    offer_addresses(["127.0.0.1"])
    yield
    offer_addresses(None)
