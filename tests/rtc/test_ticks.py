"""rtc/ticks.py: while audio flows the SFU's loop is held a tick between its passes, and
each pass reads what every socket received meanwhile; in silence the loop waits for its
sockets (docs/voice-protocol.md «Reading in ticks»)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import pytest
import uvloop

from rtc.server import parse_args
from rtc.ticks import EMPTY_TICKS, IDLE, MAX_TICK, TICK, Ticks


class Handle:
    def cancel(self) -> None:
        pass


class Loop:
    """What `Ticks` asks of the event loop, recorded: (how, delay, the callback's name)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, float, str]] = []

    def call_soon(self, callback: Callable[[], None]) -> Handle:
        self.asked.append(("soon", 0.0, callback.__name__))
        return Handle()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        self.asked.append(("later", delay, callback.__name__))
        return Handle()


def test_held_while_packets_come_and_released_after_a_silence() -> None:
    loop, slept, count = Loop(), [], [0]
    ticks = Ticks(loop, TICK, lambda: count[0], slept.append)  # type: ignore[arg-type]
    ticks.start()
    assert loop.asked == [("later", IDLE, "_look")]
    ticks._look()  # nothing yet: a silent SFU keeps waiting for its sockets
    assert slept == [] and loop.asked[-1] == ("later", IDLE, "_look")
    count[0] += 3  # a speaker's packets
    ticks._look()  # the holding starts at the next pass, not in the timer
    assert slept == [] and loop.asked[-1] == ("soon", 0.0, "_pass")
    ticks._pass()
    assert slept == [TICK] and loop.asked[-1] == ("soon", 0.0, "_pass")
    for _ in range(EMPTY_TICKS - 1):  # a pause between two packets: still held
        ticks._pass()
        assert loop.asked[-1] == ("soon", 0.0, "_pass")
    assert slept == [TICK] * EMPTY_TICKS
    ticks._pass()  # EMPTY_TICKS ticks without a packet: released
    assert slept == [TICK] * EMPTY_TICKS and loop.asked[-1] == ("later", IDLE, "_look")
    count[0] += 1
    ticks._look()
    ticks._pass()
    assert slept == [TICK] * (EMPTY_TICKS + 1)


@pytest.mark.parametrize("tick", [0.0, -0.01, MAX_TICK * 1.5])
def test_a_tick_out_of_range_is_refused(tick: float) -> None:
    with pytest.raises(ValueError, match="tick"):
        Ticks(Loop(), tick, lambda: 0)  # type: ignore[arg-type]


def test_the_tick_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_args(["--socket", "s"])[3] == TICK
    assert parse_args(["--socket", "s", "--tick-ms", "0"])[3] == 0
    assert parse_args(["--socket", "s", "--tick-ms", "4.5"])[3] == pytest.approx(0.0045)
    for bad in ("25", "-1", "десять"):
        with pytest.raises(SystemExit):
            parse_args(["--socket", "s", "--tick-ms", bad])
        assert "--tick-ms" in capsys.readouterr().err


def test_on_uvloop_each_pass_reads_what_came_during_the_tick_before_it() -> None:
    """Datagrams sent while the loop is held (the test's sleep sends them) are all read in
    the pass right after that tick, before the next one: sleep, read, sleep, read."""
    received: list[int] = []  # for each datagram read, the holds begun before it was read
    held = [0]
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    speaker = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    holds = 6

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        class Reader(asyncio.DatagramProtocol):
            def datagram_received(self, data: bytes, addr: Any) -> None:
                received.append(held[0])
                if len(received) == 1 + 4 * holds and not done.done():
                    done.set_result(None)

        def hold(seconds: float) -> None:  # the loop's thread held: four speakers talk
            held[0] += 1
            if held[0] <= holds:
                for speaker_no in range(4):
                    speaker.sendto(bytes([speaker_no]) * 60, listener.getsockname())

        transport, _ = await loop.create_datagram_endpoint(Reader, sock=listener)
        ticks = Ticks(loop, TICK, lambda: len(received), hold)
        ticks.start()
        speaker.sendto(b"first", listener.getsockname())  # audio starts
        try:
            await asyncio.wait_for(done, 10)
        finally:
            ticks.stop()
            transport.close()

    try:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(scenario())
    finally:
        speaker.close()
    assert received[0] == 0  # the first, before any tick
    reads = received[1 : 1 + 4 * holds]
    assert reads == [k for k in range(1, holds + 1) for _ in range(4)]
    assert held[0] >= holds
