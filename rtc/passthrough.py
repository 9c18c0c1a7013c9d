"""Forward Opus as received: the hooks into aiortc internals (pinned: aiortc 1.16.0).

aiortc's receiver always decodes (a decoder thread per receiver calls
`aiortc.rtcrtpreceiver.get_decoder(codec).decode(frame)`), while its sender already
sends pre-encoded packets (`encoder.pack(packet)` for anything that is not an
`av.Frame`). Replacing the Opus decoder by a pass-through makes the receiving track
yield `OpusPacket`s that a sender re-packetises without touching the audio: measured
84 % of a core with decode + re-encode against about 15 % with this, for 4 players
(architecture.md). The pinned version and these hooks are tested in
tests/rtc/test_passthrough.py.
"""

from __future__ import annotations

import fractions
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import aiortc.rtcrtpreceiver as _receiver_module
from aiortc import RTCRtpReceiver
from aiortc.codecs.base import Decoder
from aiortc.jitterbuffer import JitterFrame
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


class OpusPassThrough(Decoder):
    """A 'decoder' that hands each received Opus frame on unchanged."""

    def decode(self, encoded_frame: JitterFrame) -> list[Any]:
        return [OpusPacket(encoded_frame.data, encoded_frame.timestamp)]


_original_get_decoder = _receiver_module.get_decoder


def _get_decoder(codec: Any) -> Decoder:
    if codec.name.lower() == "opus":
        return OpusPassThrough()
    return _original_get_decoder(codec)


def install() -> None:
    """Make every receiver in this process pass Opus through (the SFU process only)."""
    _receiver_module.get_decoder = _get_decoder


def uninstall() -> None:
    """Restore aiortc's own decoder lookup."""
    _receiver_module.get_decoder = _original_get_decoder


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

    receiver._handle_rtp_packet = handle_with_level  # type: ignore[method-assign]


def level_to_amplitude(dbov: int) -> float:
    """RFC 6464 level (0 = loudest … 127 = silence, in −dBov) as a 0..1 amplitude."""
    return 0.0 if dbov >= 127 else 10 ** (-dbov / 20)
