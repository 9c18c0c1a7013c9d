"""The gate track under each slot's sender (rtc.gate)."""

from __future__ import annotations

import asyncio

import pytest
from aiortc.mediastreams import MediaStreamError

from rtc.gate import DEPTH, GateTrack
from rtc.passthrough import OpusPacket


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def drain(gate: GateTrack, count: int) -> list[OpusPacket]:
    return [await gate.recv() for _ in range(count)]


def test_one_source_passes_through_unchanged() -> None:
    async def scenario() -> None:
        gate = GateTrack()
        source = object()
        for pts in (0, 960, 1920, 96000):  # a gap (mic was off) is kept as it is
            gate.push(OpusPacket(b"x%d" % pts, pts), source)
        packets = await drain(gate, 4)
        assert [p.pts for p in packets] == [0, 960, 1920, 96000]
        assert [p.data for p in packets] == [b"x0", b"x960", b"x1920", b"x96000"]

    asyncio.run(scenario())


def test_a_new_source_continues_the_timestamps() -> None:
    """Another publisher (or a reconnected one, whose clock restarts at 0) on the same slot
    continues after the last packet, by the wall time that passed (at least one frame)."""

    async def scenario() -> None:
        clock = Clock()
        gate = GateTrack(clock)
        first, second = object(), object()
        gate.push(OpusPacket(b"a", 480000), first)
        clock.now = 0.5
        gate.push(OpusPacket(b"b", 0), second)
        gate.push(OpusPacket(b"c", 960), second)
        gate.push(OpusPacket(b"d", 1920), first)  # back to the first: rebased again
        packets = await drain(gate, 4)
        assert [p.pts for p in packets] == [480000, 504000, 504960, 505920]

    asyncio.run(scenario())


def test_a_stalled_sender_keeps_only_the_newest_packets() -> None:
    async def scenario() -> None:
        gate = GateTrack()
        source = object()
        for i in range(DEPTH + 3):
            gate.push(OpusPacket(b"", i * 960), source)
        packets = await drain(gate, DEPTH)
        assert packets[0].pts == 3 * 960
        assert packets[-1].pts == (DEPTH + 2) * 960

    asyncio.run(scenario())


def test_stop_wakes_a_waiting_sender() -> None:
    """The reason for the gate: a sender blocked in recv() must end when the slot goes."""

    async def scenario() -> None:
        gate = GateTrack()
        waiting = asyncio.create_task(gate.recv())
        await asyncio.sleep(0)  # let recv() start waiting
        gate.stop()
        with pytest.raises(MediaStreamError):
            await asyncio.wait_for(waiting, timeout=5)
        gate.push(OpusPacket(b"late", 0), object())  # ignored: the sender is gone
        with pytest.raises(MediaStreamError):
            await gate.recv()

    asyncio.run(scenario())
