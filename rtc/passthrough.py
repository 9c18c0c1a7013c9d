"""Forward Opus as received: the hooks into aiortc internals (pinned: aiortc 1.16.0).

aiortc's receiver always decodes: `RTCRtpReceiver.receive` starts a decoder thread
(`aiortc.rtcrtpreceiver.decoder_worker`) fed through the receiver's private
`__decoder_queue`, and the decoded frames reach the track through the event loop. Its
sender, though, already sends pre-encoded packets (`encoder.pack(packet)` for anything
that is not an `av.Frame`). So for audio receivers the decoder queue is replaced by one
that puts each received Opus frame, as an `OpusPacket`, straight into the track's queue:
no decoding, and no hop to a thread and back per packet. Measured: 84 % of a core with
decode + re-encode against about 15 % with a pass-through decoder, for 4 players
(architecture.md); skipping the thread hop as well about halves the cost of a
connection (docs/performance.md). The pinned version and these hooks are tested in
tests/rtc/test_passthrough.py.
"""

from __future__ import annotations

import asyncio
import fractions
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import aiortc.rtcrtpreceiver as _receiver_module
from aiortc import RTCRtpReceiver
from aiortc.jitterbuffer import JitterFrame
from aiortc.rtcrtpparameters import RTCRtpReceiveParameters
from aiortc.rtp import RtpPacket

#: The aiortc version whose internals these hooks were written and tested against.
AIORTC_VERSION = "1.16.0"

OPUS_TIME_BASE = fractions.Fraction(1, 48000)


class OpusPacket:
    """One encoded Opus frame, duck-typed like the `av.Packet` an aiortc sender packs.

    `OpusEncoder.pack` reads `pts`, `time_base` and `bytes(packet)`; a plain object is
    much cheaper than an `av.Packet` and lets each gate give its own timestamps.
    """

    __slots__ = ("data", "pts")
    time_base = OPUS_TIME_BASE

    def __init__(self, data: bytes, pts: int) -> None:
        self.data = data
        self.pts = pts

    def __bytes__(self) -> bytes:
        return self.data


class _DirectQueue:
    """Stands in for a receiver's decoder queue: Opus frames go straight to its track."""

    def __init__(self, track_queue: asyncio.Queue[Any]) -> None:
        self._out = track_queue

    def put(self, item: tuple[Any, JitterFrame] | None) -> None:
        """What the receiver hands its decoder: (codec, frame), or None at the end."""
        if item is None:
            self._out.put_nowait(None)  # the track ends, as after the decoder thread
            return
        codec, frame = item
        if codec.name.lower() == "opus":  # browsers send Opus; anything else is dropped
            self._out.put_nowait(OpusPacket(frame.data, frame.timestamp))


_original_receive = RTCRtpReceiver.receive
_original_decoder_worker = _receiver_module.decoder_worker


async def _receive(self: RTCRtpReceiver, parameters: RTCRtpReceiveParameters) -> None:
    track = self._track
    if track is not None and track.kind == "audio":
        # Not typed (next line): aiortc's private queue, replaced to skip decoding.
        self._RTCRtpReceiver__decoder_queue = _DirectQueue(track._queue)  # type: ignore[attr-defined]
    await _original_receive(self, parameters)


def _decoder_worker(loop: Any, input_q: Any, output_q: Any, decode_error: Any) -> None:
    """aiortc still starts its decoder thread; for a direct queue it ends at once."""
    if not isinstance(input_q, _DirectQueue):
        _original_decoder_worker(loop, input_q, output_q, decode_error)


def install() -> None:
    """Make every audio receiver in this process pass Opus through (the SFU process)."""
    # Not typed (next line): patched for the SFU's process only, restored by unpatch().
    RTCRtpReceiver.receive = _receive  # type: ignore[method-assign]
    _receiver_module.decoder_worker = _decoder_worker


def uninstall() -> None:
    """Restore aiortc's own receiving (decoding) path."""
    # Not typed (next line): the patch undone.
    RTCRtpReceiver.receive = _original_receive  # type: ignore[method-assign]
    _receiver_module.decoder_worker = _original_decoder_worker


@contextmanager
def installed() -> Iterator[None]:
    """Pass-through for the duration of a block (tests and load clients)."""
    install()
    try:
        yield
    finally:
        uninstall()


def watch_levels(receiver: RTCRtpReceiver, on_level: Callable[[int], None]) -> None:
    """Call `on_level(dBov)` for each received packet carrying RFC 6464 audio level.

    Browsers put the level of every packet in the `ssrc-audio-level` header extension,
    which aiortc negotiates and parses but does not expose; reading it here gives
    speaking indicators without decoding. The DTLS transport looks the handler up on
    the receiver at every packet, so an instance attribute wraps it.
    """
    handle: Callable[[RtpPacket, int], Awaitable[None]] = receiver._handle_rtp_packet

    async def handle_with_level(packet: RtpPacket, arrival_time_ms: int) -> None:
        level = packet.extensions.audio_level
        if level is not None:
            on_level(level[1])
        await handle(packet, arrival_time_ms)

    # Not typed (next line): one receiver's packets also read their audio level.
    receiver._handle_rtp_packet = handle_with_level  # type: ignore[method-assign]


def level_to_amplitude(dbov: int) -> float:
    """RFC 6464 level (0 = loudest … 127 = silence, in −dBov) as a 0..1 amplitude."""
    return 0.0 if dbov >= 127 else 10 ** (-dbov / 20)
