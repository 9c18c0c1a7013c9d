"""The gate track under each slot's sender (rtc.gate)."""

from __future__ import annotations

import asyncio

import pytest
from aiortc.mediastreams import MediaStreamError

from rtc.gate import MAX_GAP, GateTrack, Renumbering


class Stream:
    """Stands in for a slot's sender's outgoing stream (what the gate hands over)."""


def test_one_source_passes_through_unchanged() -> None:
    renumbering, source = Renumbering(), object()
    got = [renumbering.map(seq, pts, source, 0.0) for seq, pts in ((7, 0), (8, 960), (10, 96000))]
    assert got == [(0, 0), (1, 960), (3, 96000)]  # a silent stretch, a gap kept


def test_a_new_source_continues_the_timestamps() -> None:
    """Another publisher (or a reconnected one, whose clock restarts at 0) on the same slot
    continues after the last packet, by the wall time that passed (at least one frame)."""
    renumbering, first, second = Renumbering(), object(), object()
    got = [
        renumbering.map(500, 480000, first, 0.0),
        renumbering.map(9000, 0, second, 0.5),
        renumbering.map(9001, 960, second, 0.5),
        renumbering.map(502, 1920, first, 0.5),  # back to the first: rebased again
    ]
    assert got == [(0, 480000), (1, 504000), (2, 504960), (3, 505920)]


def test_a_gate_has_a_stream_only_while_its_sender_runs() -> None:
    """Nothing is sent to a slot before its sender starts (no burst of old audio later) nor
    after the slot stopped; each change is counted (the publishers' listeners follow it)."""

    async def scenario() -> None:
        gate, stream = GateTrack(), Stream()
        assert gate.stream is None
        before = GateTrack.changes
        gate.attach(stream)  # type: ignore[arg-type]
        assert gate.stream is stream and GateTrack.changes == before + 1
        gate.stop()
        assert gate.stream is None and GateTrack.changes == before + 2
        gate.attach(stream)  # type: ignore[arg-type]  # a stopped gate takes no sender
        assert gate.stream is None

    asyncio.run(scenario())


def test_stop_wakes_a_waiting_sender() -> None:
    """The reason for the gate: a sender waiting on its slot must end when the slot goes."""

    async def scenario() -> None:
        gate = GateTrack()
        waiting = asyncio.create_task(gate.ended())
        await asyncio.sleep(0)  # let the sender start waiting
        assert not waiting.done()
        gate.stop()
        await asyncio.wait_for(waiting, timeout=5)
        with pytest.raises(MediaStreamError):
            await gate.recv()

    asyncio.run(scenario())


def numbers(renumbering: Renumbering, packets: list[tuple[int, int]], source: object) -> list:
    return [renumbering.map(seq, ts, source, 0.0) for seq, ts in packets]


def test_a_lost_packet_stays_a_gap_and_a_late_one_keeps_its_place() -> None:
    """Relay, don't buffer (docs/voice-protocol.md): the browser sees the loss and the order."""
    renumbering, source = Renumbering(), object()
    packets = [(100, 9600), (101, 10560), (103, 12480), (102, 11520), (104, 13440)]
    assert numbers(renumbering, packets, source) == [
        (0, 9600),
        (1, 10560),
        (3, 12480),  # 102 lost here…
        (2, 11520),  # …and arriving late: forwarded, in its own place
        (4, 13440),
    ]


def test_a_duplicate_is_dropped() -> None:
    renumbering, source = Renumbering(), object()
    assert numbers(renumbering, [(5, 0), (6, 960), (6, 960)], source) == [(0, 0), (1, 960), None]


def test_sequence_numbers_and_timestamps_wrap() -> None:
    """Incoming numbers wrap at 65535 and 2³²−1; the outgoing ones follow without a jump."""
    renumbering, source = Renumbering(), object()
    first_ts = (1 << 32) - 960
    packets = [(65534, first_ts), (65535, 0), (1, 1920), (0, 960)]
    assert numbers(renumbering, packets, source) == [(0, first_ts), (1, 0), (3, 1920), (2, 960)]


def test_the_outgoing_numbers_wrap_too() -> None:
    renumbering, first, second = Renumbering(), object(), object()
    for seq in [*range(0, 65536, MAX_GAP), 65535]:  # gaps up to MAX_GAP: out = in
        assert renumbering.map(seq, seq * 960 % (1 << 32), first, 0.0) == (seq, seq * 960)
    assert renumbering.map(7, 5000, second, 0.0) == (0, 65535 * 960 + 960)  # wrapped
    assert renumbering.map(8, 5960, second, 0.0) == (1, 65535 * 960 + 1920)


def test_a_long_pause_in_forwarding_continues_the_stream() -> None:
    """Listen off at the SFU while the speaker kept sending: after more than MAX_GAP
    missing packets the stream goes on at the next number, not as a burst of loss."""
    renumbering, source = Renumbering(), object()
    renumbering.map(10, 0, source, 0.0)
    resumed = 10 + MAX_GAP + 50
    assert renumbering.map(resumed, 150 * 960, source, 3.0) == (1, 3 * 48000)
    assert renumbering.map(resumed + 1, 151 * 960, source, 3.02) == (2, 3 * 48000 + 960)
    assert renumbering.map(5, 0, source, 3.04) == (3, 3 * 48000 + 960 * 2)  # far behind: rebased
