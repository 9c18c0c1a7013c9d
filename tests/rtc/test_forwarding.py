"""Real SFU process, Python aiortc participants over loopback (issue 7 tests)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from rtc.client import Participant, SfuConnection

from .conftest import SfuProcess

TABLE = "t1"


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


def test_each_player_hears_the_others(sfu: SfuProcess) -> None:
    """A's audio reaches B and C (frames and decoded energy grow), and every other pair."""

    async def scenario(table: Table) -> None:
        for name in "ABC":
            await table.sit(name)
        await table.settle_slots()
        for listener in "ABC":
            for speaker in "ABC":
                if listener != speaker:
                    await table.hears(listener, speaker)
                    assert table.energy(listener, speaker) > 0

    run(sfu, 3, scenario)
