"""The gate track: the one long-lived track under each receive slot's sender.

A slot's sender keeps the same track for the whole connection (swapping tracks under an
aiortc sender leaves it waiting on a stopped relay track, docs/architecture.md); the SFU
pushes packets into the gate as they arrive, and when nothing is pushed (mic off, listen
off, free slot) the sender simply sends nothing. `Renumbering` gives each outgoing stream
its own consistent RTP sequence numbers and timestamps: within one source a lost packet
stays a gap and a late one keeps its place (the listener's browser conceals and reorders,
docs/voice-protocol.md); a new source (another publisher, the same player after a
reconnect) or a jump after a pause continues the stream where it was, so the browser sees
one continuous stream on the slot's SSRC.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from aiortc.mediastreams import MediaStreamError

from .passthrough import OpusPacket, RelayedTrack, Sink

#: Opus frames of 20 ms at 48 kHz.
SAMPLES_PER_FRAME = 960
CLOCK_RATE = 48000
#: A sequence jump of more packets than this (2 s) is not loss but a pause in forwarding
#: (listen or mic off at the SFU while the browser kept sending): the stream continues.
MAX_GAP = 100

SEQ_MOD = 1 << 16
TS_MOD = 1 << 32


def _seq_delta(newer: int, older: int) -> int:
    """`newer − older` of two 16-bit sequence numbers, in −32768..32767 (wraps at 65535)."""
    return (newer - older + SEQ_MOD // 2) % SEQ_MOD - SEQ_MOD // 2


class Renumbering:
    """The sequence numbers and timestamps of one outgoing stream (pure: unit-tested)."""

    def __init__(self) -> None:
        self._source: object = None
        self._seq_offset = 0
        self._ts_offset = 0
        self._newest: int | None = None  # highest incoming seq of the current source
        self._last_seq = -1  # outgoing numbers of the newest packet sent
        self._last_ts = 0
        self._last_time = 0.0
        self._started = False

    def map(self, seq: int, ts: int, source: object, now: float) -> tuple[int, int] | None:
        """Outgoing (seq, ts) for incoming `seq`/`ts` of `source`, None for a duplicate."""
        delta = MAX_GAP + 1 if self._newest is None else _seq_delta(seq, self._newest)
        if source is not self._source or abs(delta) > MAX_GAP:
            self._rebase(seq, ts, now)
            self._source, delta = source, 1
        elif delta == 0:
            return None
        out_seq = (seq + self._seq_offset) % SEQ_MOD
        out_ts = (ts + self._ts_offset) % TS_MOD
        if delta > 0:
            self._newest = seq
            self._last_seq, self._last_ts, self._last_time = out_seq, out_ts, now
        return out_seq, out_ts

    def _rebase(self, seq: int, ts: int, now: float) -> None:
        """Continue the outgoing stream: next sequence number, timestamps by elapsed time."""
        if self._started:
            elapsed = int((now - self._last_time) * CLOCK_RATE)
            self._ts_offset = self._last_ts + max(SAMPLES_PER_FRAME, elapsed) - ts
        else:
            self._ts_offset = 0
        self._seq_offset = self._last_seq + 1 - seq
        self._started = True


class GateTrack(RelayedTrack):
    """An audio track fed by `push`; its sender sends exactly what is pushed, at once."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._clock = clock
        self._numbers = Renumbering()
        self._sink: Sink | None = None
        self._stopped = asyncio.Event()

    def attach(self, sink: Sink) -> None:
        """The slot's sender started: what is pushed from now on goes to `sink`."""
        if self.readyState == "live":
            self._sink = sink

    def push(self, packet: OpusPacket, source: object) -> None:
        """Send `packet` of `source` (any identity: a new identity continues the stream);
        nothing before the slot's sender started or after the slot stopped."""
        sink = self._sink
        if sink is None:
            return
        numbers = self._numbers.map(packet.seq, packet.pts, source, self._clock())
        if numbers is not None:
            sink(packet, *numbers)

    # Not typed (next line): aiortc types recv as Frame | Packet; nothing is read here.
    async def recv(self) -> OpusPacket:  # type: ignore[override]
        """A gate is never read (its sender is handed what is pushed): MediaStreamError."""
        raise MediaStreamError

    async def ended(self) -> None:
        """Return once the gate is stopped (its sender's loop ends)."""
        await self._stopped.wait()

    def stop(self) -> None:
        """Stop sending, and wake the sender waiting in `ended`."""
        if self.readyState == "live":
            super().stop()
            self._sink = None
            self._stopped.set()
