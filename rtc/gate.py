"""The gate track: the one long-lived track under each receive slot's sender.

A slot's sender keeps the same track for the whole connection (swapping tracks under an
aiortc sender leaves it waiting on a stopped relay track, docs/architecture.md); the SFU
forwards packets to the gate's stream as they arrive, and when nothing is forwarded (mic
off, listen off, free slot) the sender simply sends nothing. `Renumbering` (compiled,
rtc/_forward.c; each listener's `Stream` is one) gives each outgoing stream its own
consistent RTP sequence numbers and timestamps: within one source a lost packet stays a gap
and a late one keeps its place (the listener's browser conceals and reorders,
docs/voice-protocol.md); a new source (another publisher, the same player after a
reconnect) or a jump after a pause continues the stream where it was, so the browser sees
one continuous stream on the slot's SSRC.
"""

from __future__ import annotations

import asyncio

from aiortc.mediastreams import MediaStreamError

from ._forward import MAX_GAP, Renumbering
from .passthrough import OpusPacket, RelayedTrack, _Sending

__all__ = ["MAX_GAP", "GateTrack", "Renumbering"]


class GateTrack(RelayedTrack):
    """An audio track whose sender sends what is forwarded to its `stream`, at once."""

    #: Counts the gates' senders started and gates stopped (the publishers' `Listeners`
    #: are made again when it changed).
    changes = 0

    def __init__(self) -> None:
        super().__init__()
        self.stream: _Sending | None = None
        self._stopped = asyncio.Event()

    def attach(self, stream: _Sending) -> None:
        """The slot's sender started: what is forwarded from now on goes to `stream`."""
        if self.readyState == "live":
            self.stream = stream
            GateTrack.changes += 1

    # Not typed (next line): aiortc types recv as Frame | Packet; nothing is read here.
    async def recv(self) -> OpusPacket:  # type: ignore[override]
        """A gate is never read (its sender is handed what is forwarded): MediaStreamError."""
        raise MediaStreamError

    async def ended(self) -> None:
        """Return once the gate is stopped (its sender's loop ends)."""
        await self._stopped.wait()

    def stop(self) -> None:
        """Stop sending, and wake the sender waiting in `ended`."""
        if self.readyState == "live":
            super().stop()
            self.stream = None
            GateTrack.changes += 1
            self._stopped.set()
