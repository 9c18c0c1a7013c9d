"""The gate track: the one long-lived track under each receive slot's sender.

A slot's sender keeps the same track for the whole connection (swapping tracks under an
aiortc sender leaves it waiting on a stopped relay track, architecture.md); the SFU
pushes packets into the gate, and when nothing is pushed (mic off, listen off, free
slot) the sender simply sends nothing. When the slot starts carrying another source
(a new publisher, or the same player after a reconnect) the timestamps are rebased so
that the browser sees one continuous stream on the slot's SSRC.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from .passthrough import OpusPacket

#: Opus frames of 20 ms at 48 kHz.
SAMPLES_PER_FRAME = 960
CLOCK_RATE = 48000
#: Packets queued per slot before the oldest is dropped (a stalled sender must not grow).
DEPTH = 8


class GateTrack(MediaStreamTrack):
    """An audio track fed by `push`; its sender forwards exactly what is pushed."""

    kind = "audio"

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._queue: asyncio.Queue[OpusPacket | None] = asyncio.Queue(maxsize=DEPTH)
        self._clock = clock
        self._source: object = None
        self._offset = 0
        self._last_pts: int | None = None
        self._last_time = 0.0

    def push(self, packet: OpusPacket, source: object) -> None:
        """Queue `packet` of `source` (any identity: a new identity rebases timestamps)."""
        if self.readyState != "live":
            return
        now = self._clock()
        if source is not self._source:
            if self._last_pts is not None:
                gap = max(SAMPLES_PER_FRAME, int((now - self._last_time) * CLOCK_RATE))
                self._offset = self._last_pts + gap - packet.pts
            self._source = source
        pts = packet.pts + self._offset
        self._last_pts, self._last_time = pts, now
        self._put(OpusPacket(packet.data, pts))

    def _put(self, item: OpusPacket | None) -> None:
        if self._queue.full():
            self._queue.get_nowait()
        self._queue.put_nowait(item)

    # Not typed (next line): aiortc types recv as Frame | Packet; this track gives packets.
    async def recv(self) -> OpusPacket:  # type: ignore[override]
        """The next packet to send; MediaStreamError once stopped (ends the sender)."""
        if self.readyState != "live":
            raise MediaStreamError
        packet = await self._queue.get()
        if packet is None:
            raise MediaStreamError
        return packet

    def stop(self) -> None:
        """Stop and wake a sender waiting in `recv` (a plain stop would leave it waiting)."""
        if self.readyState == "live":
            super().stop()
            self._put(None)
