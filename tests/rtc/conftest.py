"""Fixtures: the real SFU process on loopback, and loopback-only ICE for the test clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from voicetable import PORTS, SfuProcess, start_sfu, stop_sfu

from rtc.ice import offer_addresses


@pytest.fixture
def sfu(tmp_path: Path) -> Iterator[SfuProcess]:
    """An SFU process with a UDP port range, for one test."""
    running = start_sfu(tmp_path, "--ports", f"{PORTS.start}-{PORTS.stop - 1}")
    try:
        yield running
    finally:
        code = stop_sfu(running)
    assert code == 0


@pytest.fixture(autouse=True)
def loopback_clients() -> Iterator[None]:
    """The test's own aiortc clients gather candidates on loopback only."""
    offer_addresses(["127.0.0.1"])
    yield
    offer_addresses(None)
