"""A voice table driven like the web process would, for the SFU tests."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.voicekit import Participant, SfuConnection

TABLE = "t1"
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
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
    except BaseException:  # it did not start: it must not outlive the test
        process.kill()
        process.wait(timeout=20)
        raise
    return SfuProcess(process, socket_path)


def stop_sfu(sfu: SfuProcess) -> int:
    """Close its stdin (as if the web process died) and return its exit code."""
    assert sfu.process.stdin is not None
    sfu.process.stdin.close()
    try:
        return sfu.process.wait(timeout=20)
    except subprocess.TimeoutExpired:  # it did not end: killed, and the test fails
        sfu.process.kill()
        sfu.process.wait(timeout=20)
        raise


class Table:
    """A voice table seen from the web process: one connection, participants by name."""

    def __init__(self, conn: SfuConnection, seats: int) -> None:
        self.conn = conn
        self.seats = seats
        self.people: dict[str, Participant] = {}
        self.slots: dict[str, dict[str, str]] = {}  # player -> {carried player: mid}

    async def sit(self, player: str) -> Participant:
        """Join, offer, answer: the browser's path through signalling."""
        await self.conn.request("join", table=TABLE, player=player)
        participant = Participant(slots=self.seats - 1)
        reply = await self.conn.request(
            "offer", table=TABLE, player=player, sdp=await participant.offer()
        )
        await participant.accept(reply["sdp"])
        self.people[player] = participant
        return participant

    async def settle_slots(self) -> None:
        """Read every pending slots event so that `mid(listener, speaker)` is current."""
        while not self.conn.events.empty():
            self._record(self.conn.events.get_nowait())

    def _record(self, event: dict[str, Any]) -> None:
        if event["event"] == "slots":
            self.slots[event["player"]] = {
                s["player"]: s["mid"] for s in event["slots"] if s["player"] is not None
            }

    def frames(self, listener: str, speaker: str) -> int:
        mid = self.slots[listener][speaker]
        return self.people[listener].received[mid].frames

    def energy(self, listener: str, speaker: str) -> float:
        mid = self.slots[listener][speaker]
        return self.people[listener].received[mid].energy

    async def hears(self, listener: str, speaker: str, frames: int = 25) -> None:
        """Wait (bounded) until `listener` got `frames` more frames from `speaker`."""
        start = self.frames(listener, speaker)
        await self.people[listener].wait_until(
            lambda: self.frames(listener, speaker) >= start + frames
        )

    async def close(self) -> None:
        for participant in self.people.values():
            await participant.close()
        await self.conn.close()


def run(sfu: SfuProcess, seats: int, scenario: Callable[[Table], Awaitable[None]]) -> None:
    async def main() -> None:
        table = Table(await SfuConnection.open(sfu.socket), seats)
        try:
            await scenario(table)
        finally:
            await table.close()

    asyncio.run(main())


async def assert_silent(
    table: Table, listener: str, speaker: str, witness: tuple[str, str]
) -> None:
    """`listener` gets nothing more from `speaker` while `witness` (a pair) keeps talking.

    Packets already in flight may land first: wait for 10 witness frames, take the
    count, then require it unchanged over 50 more witness frames (a full second).
    """
    await table.hears(*witness, frames=10)
    before = table.frames(listener, speaker)
    await table.hears(*witness, frames=50)
    assert table.frames(listener, speaker) == before
