"""Forward Opus as received: the hooks into aiortc internals (pinned: aiortc 1.16.0).

Relay, don't buffer (docs/voice-protocol.md): each received RTP packet of an audio
receiver skips aiortc's `JitterBuffer(capacity=16, prefetch=4)` — which holds a frame until
the 4th packet after it arrives and discards what it holds at a loss, multiplying uplink
loss about 5× — and reaches the track at once with its RTP sequence number and timestamp.
Senders of a `RelayedTrack` send each packet with the sequence number and timestamp the
track gives (rtc.gate rewrites them per outgoing stream), so a gap stays a gap and the
listener's browser conceals and reorders, with Opus in-band FEC (`opus_answer`). They send
it as it is forwarded, from the socket callback that read the publisher's packet, not from
aiortc's sending loop, which cost a task, an `RtpPacket` and datetimes per listener and
packet (docs/performance.md «Half the CPU»): the publisher's `Listeners` hand each packet to the
compiled forwarding (rtc/_forward.c), which for every listener's `_Sending` (a
`_forward.Stream`) numbers it, writes the header, encrypts it with the listener's SRTP
session — libsrtp's `srtp_protect` in pylibsrtp's own binding, called through its address
on the session's `srtp_t`, so no second libsrtp — and writes it to the UDP socket of his ICE
pair, all in C: one call per received packet, not a chain of Python calls per listener.
Python keeps the routes, what a RED packet becomes per kind of listener (`red_variants`),
the answers to NACKs (from the stream's `history`, which the C side fills), the TURN relays
(`_Sending.relay`: aioice frames the data), a newly nominated ICE pair (`retarget`) and a
listener whose stream fails (`fail`: logged, his gate stopped).

aiortc's receiver always decodes: `RTCRtpReceiver.receive` starts a decoder thread
(`aiortc.rtcrtpreceiver.decoder_worker`), and every packet passes aioice's queue, the DTLS
transport's task, an `RtpPacket` with its header extensions and the receiver's jitter
buffer first. So an audio receiver's packets go to its `Relay` instead, from the socket's
callback: decrypted there, the header read with `struct`, the receiver reports' statistics
and the uplink NACKs kept, and each Opus frame handed as an `OpusPacket` straight to the
SFU's forwarding (`forward_from`: no queue and no task wake-up per packet), or put into the
track's queue where nothing forwards it (docs/voice-protocol.md «Receiving»); the decoder
thread ends at once.
Measured: 84 % of a core with decode + re-encode against about 15 % with a pass-through
decoder, for 4 players (docs/architecture.md); skipping the thread hop as well about
halved the cost of a connection, and aiortc's receive path is measured in
docs/performance.md «The receive path without aiortc's receiver». The pinned version and
these hooks are tested in tests/rtc/test_passthrough.py.

Two things aiortc does for video only are switched on for audio here, for phones on lossy
networks (docs/voice-protocol.md «Redundancy and retransmission»):
- RED (RFC 2198, "audio/red" with Opus inside) is negotiated beside Opus. A publisher's RED
  packets go as they came to listeners that negotiated RED and as their primary frame, plain
  Opus, to the others (rtc/red.py); each packet is sent with the payload type of what it is.
- NACK: the SFU's receiver of a mic asks the publisher for packets its uplink lost (aiortc's
  NackGenerator asked only at a new gap; `UplinkNacks` asks again while it can still help),
  and each outgoing stream keeps its last RTP_HISTORY_SIZE packets (128:
  2.56 s of 20 ms frames) to answer a listener's NACK from them (`Resends` bounds it).
"""

from __future__ import annotations

import asyncio
import collections
import copy
import fractions
import logging
import random
import struct
import time
import traceback
from collections.abc import Callable, Iterator, Set
from contextlib import contextmanager
from typing import Any, cast

import aiortc.rtcrtpreceiver as _receiver_module
import aiortc.rtcrtpsender as _sender_module
import pylibsrtp
from aioice.ice import CandidatePair, StunProtocol
from aiortc import RTCDtlsTransport, RTCRtpReceiver, RTCRtpSender, clock
from aiortc.codecs import CODECS
from aiortc.mediastreams import MediaStreamTrack
from aiortc.rtcdtlstransport import State as DtlsState
from aiortc.rtcrtpparameters import (
    RTCRtcpFeedback,
    RTCRtpCodecParameters,
    RTCRtpReceiveParameters,
    RTCRtpSendParameters,
)
from aiortc.rtcrtpreceiver import StreamStatistics
from aiortc.rtcrtpsender import RTP_HISTORY_SIZE, random_sequence_number
from aiortc.rtp import (
    RTCP_RTPFB_NACK,
    RtcpRtpfbPacket,
    RtpPacket,
    unpack_header_extensions,
)
from aiortc.sdp import SessionDescription
from aiortc.utils import random32
from pylibsrtp._binding import ffi as _srtp_ffi
from pylibsrtp._binding import lib as _srtp_lib

from . import _forward, red

#: The aiortc version whose internals these hooks were written and tested against.
AIORTC_VERSION = "1.16.0"
#: The pylibsrtp version whose session internals `protect` reads (aiortc's SRTP).
PYLIBSRTP_VERSION = "1.0.0"

OPUS_TIME_BASE = fractions.Fraction(1, 48000)
#: RED as the SFU offers it beside Opus; its fmtp names the Opus payload type of each
#: answer (`opus_answer`). Its own payload type is the offer's (a dynamic one).
NACK = RTCRtcpFeedback(type="nack")
RED_CODEC = RTCRtpCodecParameters(
    mimeType="audio/red", clockRate=48000, channels=2, payloadType=63, rtcpFeedback=[NACK]
)


class Counters:
    """What the retransmission did, for the SFU's stats (docs/voice-protocol.md)."""

    received = 0  # RTP packets of relayed mics (rtc/ticks.py reads whether audio flows)
    red_received = 0  # packets of publishers that came as RED (Opus inside)
    red_sent = 0  # RED packets forwarded as they came (to listeners with RED)
    red_unwrapped = 0  # RED packets forwarded as their primary frame (listeners without)
    nacks_sent = 0  # NACKs sent to publishers (their uplink lost packets)
    retransmitted = 0  # packets sent again to listeners that asked (NACK)
    send_dropped = 0  # datagrams dropped at a full socket send buffer (`send_datagram`)


class OpusPacket:
    """One encoded Opus frame, duck-typed like the `av.Packet` an aiortc sender packs.

    `OpusEncoder.pack` reads `pts`, `time_base` and `bytes(packet)`; a plain object is
    much cheaper than an `av.Packet` and lets each gate give its own timestamps. Received
    packets carry their RTP timestamp as `pts` and their RTP sequence number as `seq`.
    """

    __slots__ = ("data", "marker", "pts", "red", "seq")
    time_base = OPUS_TIME_BASE

    def __init__(
        self, data: bytes, pts: int, seq: int = 0, marker: int = 0, *, red: bool = False
    ) -> None:
        self.data = data
        self.pts = pts
        self.seq = seq
        self.marker = marker
        self.red = red  # `data` is a RED payload (Opus frames inside, rtc/red.py)

    def __bytes__(self) -> bytes:
        return self.data

    def outgoing(self, opus: int, red_type: int | None) -> tuple[int, bytes] | None:
        """(payload type, payload) for a listener whose Opus and RED are `opus` and
        `red_type` (None: no RED): RED as it came where he has it (its blocks numbered as
        his Opus), the primary frame otherwise; None for a malformed RED payload from a
        publisher (nothing to forward)."""
        if not self.red:
            return opus, self.data
        try:
            if red_type is not None:
                return red_type, red.relabel(self.data, opus)
            return opus, red.primary(self.data)
        except red.RedError:
            return None


#: A listener's kind: his Opus and RED payload types (None: not negotiated).
Kind = tuple[int | None, int | None]


def red_variants(
    packet: OpusPacket, kinds: collections.Counter[Kind]
) -> dict[Kind, tuple[int, bytes] | None]:
    """What a RED `packet` becomes for each kind of listener (`kinds`: how many of each),
    worked out once per packet and kind however many listeners there are, and counted per
    listener (`Counters`)."""
    variants: dict[Kind, tuple[int, bytes] | None] = {}
    for (opus, red_type), count in kinds.items():
        if opus is None:
            continue
        variants[opus, red_type] = packet.outgoing(opus, red_type)
        if red_type is not None:
            Counters.red_sent += count
        else:
            Counters.red_unwrapped += count
    return variants


class Listeners:
    """The outgoing streams one publisher's packets go to (rtc.sfu keeps one per publisher,
    made again when the routes, the peers or the slots' senders change)."""

    __slots__ = ("kinds", "streams")

    def __init__(self, streams: list[_Sending]) -> None:
        self.streams = streams
        self.kinds = collections.Counter(stream.kind for stream in streams)

    def send(self, packet: OpusPacket, source: object, now: float) -> None:
        """Send `packet` of `source` to every listener, each stream numbering it as it goes
        on (rtc.gate), in one call to the compiled forwarding (rtc/_forward.c); at `now`
        (monotonic seconds, for a stream that continues after a pause)."""
        variants = red_variants(packet, self.kinds) if packet.red else None
        dropped = _forward.forward(
            self.streams, packet.data, packet.seq, packet.pts, packet.marker, variants, source, now
        )
        if dropped:
            Counters.send_dropped += dropped


class RelayedTrack(MediaStreamTrack):
    """A track whose sender sends what the publisher's `Listeners` hand it, with its own
    numbers (rtc.gate), instead of reading frames and numbering them in turn."""

    kind = "audio"

    def attach(self, stream: _Sending) -> None:
        """The sender started: its outgoing stream, to which packets are sent from now on."""
        raise NotImplementedError

    async def ended(self) -> None:
        """Return once the track is stopped (its sender's loop then ends)."""
        raise NotImplementedError


class _DirectQueue:
    """Stands in for a receiver's decoder queue: aiortc's decoder thread, handed this,
    ends at once (`_decoder_worker`), and the end of the receiver (None) reaches its track."""

    def __init__(self, track_queue: asyncio.Queue[Any]) -> None:
        self._out = track_queue

    def put(self, item: None) -> None:
        """aiortc puts None when the receiver stops: the track ends, as after its decoder."""
        self._out.put_nowait(item)


class _Numbers:
    """What aiortc's `StreamStatistics.add` reads of a packet (fed without an RtpPacket)."""

    __slots__ = ("sequence_number", "timestamp")

    def __init__(self) -> None:
        self.sequence_number = 0
        self.timestamp = 0


_RTP_HEADER = struct.Struct("!BBHLL")  # first byte, marker | PT, seq, timestamp, SSRC
_EXTENSION_HEADER = struct.Struct("!HH")  # profile, length in 32-bit words
AUDIO_LEVEL_URI = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"


class Relay:
    """One mic's received RTP, from its decrypted bytes to its track: stands in for aiortc's
    `RTCRtpReceiver._handle_rtp_packet` (docs/voice-protocol.md «Receiving»).

    aiortc built an `RtpPacket` with every header extension parsed, a datetime for the
    receiver's list of sources, a jitter-buffer frame and a timestamp mapping per packet.
    Here the header is read with one `struct` call; what the SFU needs of it is kept: the
    receiver's statistics (aiortc's own `StreamStatistics`, in the dict its RTCP loop reads
    for the receiver reports: loss, highest sequence number, jitter), the uplink NACKs
    (`UplinkNacks`, sent at once), the audio level (`watch_levels`), and the Opus or RED
    payload as an `OpusPacket`: handed to the SFU's forwarding at once (`forward_from`), or
    into the track's queue for a reader of the track (clients, tests).
    """

    __slots__ = (
        "_kinds",
        "_level_id",
        "_nacks",
        "_numbers",
        "_queue",
        "_receiver",
        "_streams",
        "on_level",
        "on_packet",
    )

    def __init__(self, receiver: RTCRtpReceiver) -> None:
        self._receiver = receiver
        self._kinds: dict[int, str] = {}  # negotiated payload type: codec name
        self._level_id: int | None = None
        self._nacks: UplinkNacks | None = None
        self._numbers = _Numbers()
        self._queue: asyncio.Queue[Any] | None = None
        # Not typed (next line): aiortc's statistics per SSRC, which its receiver reports read.
        self._streams: dict[int, StreamStatistics] = receiver._RTCRtpReceiver__remote_streams  # type: ignore[attr-defined]
        self.on_level: Callable[[int], None] | None = None
        self.on_packet: Callable[[OpusPacket], None] | None = None

    def start(self, parameters: RTCRtpReceiveParameters) -> None:
        """The negotiated codecs, NACK and audio-level extension, and the track's queue."""
        self._kinds = {
            codec.payloadType: codec.name.lower()
            for codec in parameters.codecs
            if codec.payloadType is not None
        }
        self._level_id = next(
            (x.id for x in parameters.headerExtensions if x.uri == AUDIO_LEVEL_URI), None
        )
        self._nacks = UplinkNacks() if _nack_negotiated(parameters.codecs) else None
        self._queue = self._receiver._track._queue  # type: ignore[union-attr]

    def receive(self, data: bytes) -> None:
        """One decrypted RTP packet of this mic (a malformed one is dropped)."""
        receiver = self._receiver
        Counters.received += 1
        if not receiver._enabled or len(data) < 12 or self._queue is None:
            return
        first, second, seq, timestamp, ssrc = _RTP_HEADER.unpack_from(data)
        kind = self._kinds.get(second & 0x7F)
        if kind is None:
            return
        numbers = self._numbers
        numbers.sequence_number, numbers.timestamp = seq, timestamp
        stream = self._streams.get(ssrc)
        if stream is None:
            stream = self._streams[ssrc] = StreamStatistics(OPUS_TIME_BASE.denominator)
        stream.add(numbers)  # type: ignore[arg-type]  # reads the two numbers only
        nacks = self._nacks
        if nacks is not None and nacks.add(seq):
            self._send_nack(ssrc, sorted(nacks.missing))
        start = 12 + 4 * (first & 0x0F)
        end = len(data) - (data[-1] if first & 0x20 else 0)  # padding
        if first & 0x10:
            if len(data) < start + 4:
                return
            profile, words = _EXTENSION_HEADER.unpack_from(data, start)
            extensions = data[start + 4 : start + 4 + 4 * words]
            start += 4 + 4 * words
            if self.on_level is not None and self._level_id is not None:
                try:
                    found = unpack_header_extensions(profile, extensions)
                except ValueError:
                    return
                for x_id, value in found:
                    if x_id == self._level_id and value:
                        self.on_level(value[0] & 0x7F)
        if start >= end or kind not in ("opus", "red"):  # padding only, or not Opus: no frame
            return
        red = kind == "red"
        Counters.red_received += red
        packet = OpusPacket(data[start:end], timestamp, seq, second >> 7, red=red)
        if self.on_packet is not None:
            self.on_packet(packet)
        else:
            self._queue.put_nowait(packet)

    def _send_nack(self, media_ssrc: int, lost: list[int]) -> None:
        """Ask the publisher for `lost` (RFC 4585 generic NACK), sent at once."""
        # Not typed (next line): aiortc's private RTCP SSRC of this receiver.
        rtcp_ssrc = self._receiver._RTCRtpReceiver__rtcp_ssrc  # type: ignore[attr-defined]
        if rtcp_ssrc is None:
            return
        packet = RtcpRtpfbPacket(fmt=RTCP_RTPFB_NACK, ssrc=rtcp_ssrc, media_ssrc=media_ssrc)
        packet.lost = lost
        dtls = self._receiver.transport
        if dtls._state is DtlsState.CONNECTED:
            Counters.nacks_sent += 1
            transmit(dtls, dtls._tx_srtp.protect_rtcp(bytes(packet)))


def relay_of(receiver: RTCRtpReceiver) -> Relay:
    """`receiver`'s `Relay` (made at the first ask: the levels are watched, and the
    forwarding hooked, before aiortc starts the receiver)."""
    relay: Relay | None = getattr(receiver, "_svara_relay", None)
    if relay is None:
        relay = Relay(receiver)
        # Not typed (next line): kept on aiortc's receiver, where the router finds it.
        receiver._svara_relay = relay  # type: ignore[attr-defined]
    return relay


_original_receive = RTCRtpReceiver.receive
_original_send = RTCRtpSender.send
_original_handle_rtp_data = RTCDtlsTransport._handle_rtp_data
_original_datagram_received = StunProtocol.datagram_received
_original_retransmit = RTCRtpSender._retransmit
_original_decoder_worker = _receiver_module.decoder_worker
_original_sender_random = _sender_module.random
_original_run_rtp = RTCRtpSender._run_rtp
_original_audio_codecs = list(CODECS["audio"])
_original_current_ms = clock.current_ms
logger = logging.getLogger("rtc")


def _nack_negotiated(codecs: list[RTCRtpCodecParameters]) -> bool:
    return any(NACK in codec.rtcpFeedback for codec in codecs)


async def _receive(self: RTCRtpReceiver, parameters: RTCRtpReceiveParameters) -> None:
    """aiortc's `receive`; an audio receiver's packets go to its `Relay` instead, straight
    from the socket once their SSRC is known (`_receive_directly`)."""
    track = self._track
    if track is not None and track.kind == "audio":
        # Not typed (next line): aiortc's private queue, replaced to skip decoding.
        self._RTCRtpReceiver__decoder_queue = _DirectQueue(track._queue)  # type: ignore[attr-defined]
        relay_of(self).start(parameters)
        _receive_directly(self.transport)
    await _original_receive(self, parameters)


async def _handle_rtp_data(self: RTCDtlsTransport, data: bytes, arrival_time_ms: int) -> None:
    """aiortc's routing of a received RTP packet (the first ones of a stream, before the
    router knows its SSRC), which hands a relayed receiver's packets to its `Relay`."""
    relay = _relay_for(self, data)
    if relay is not None:
        try:
            relay.receive(data)
        except Exception:  # the forwarding's: logged, aiortc's DTLS task goes on
            logger.warning("relay receiver failed: %s", traceback.format_exc())
    else:
        await _original_handle_rtp_data(self, data, arrival_time_ms)


def _relay_for(dtls: RTCDtlsTransport, data: bytes) -> Relay | None:
    """The `Relay` of the receiver aiortc's router gives `data` (an RTP packet), if any."""
    try:
        packet = RtpPacket.parse(data, dtls._rtp_header_extensions_map)
    except ValueError:
        return None
    return getattr(dtls._rtp_router.route_rtp(packet), "_svara_relay", None)


def _receive_directly(dtls: RTCDtlsTransport) -> None:
    """Hand `dtls`'s SRTP packets of known relayed streams to their `Relay` as the socket
    reads them, decrypted there: not through aioice's queue, the DTLS transport's task
    and its routing (a queue, two task wake-ups and an `RtpPacket` per packet). Everything
    else — STUN aside, which aioice answers itself — goes on to the queue as before: DTLS,
    RTCP, and a stream's first packets until aiortc's router has learnt its SSRC."""
    connection = dtls.transport._connection
    if "data_received" in vars(connection):
        return  # another relayed receiver on the same (bundled) transport
    queued = connection.data_received
    ssrcs = dtls._rtp_router.ssrc_table
    keyed: list[Any] = [None, 0]  # the receiving SRTP session (kept alive), its context

    def data_received(data: bytes, component: int) -> None:
        # The SRTP packets (RFC 7983: first byte 128–191) that are RTP, not RTCP.
        if len(data) >= 12 and 127 < data[0] < 192 and not 191 < data[1] < 209:
            relay = getattr(ssrcs.get(_SSRC.unpack_from(data, 8)[0]), "_svara_relay", None)
            if relay is not None and dtls._state is DtlsState.CONNECTED:
                session = dtls._rx_srtp
                if session is not keyed[0]:
                    keyed[:] = session, _context(session)
                _receive_srtp(dtls, relay, keyed[1], data)
                return
        queued(data, component)

    # Not typed (next line): aioice's per-datagram callback, for this connection only.
    connection.data_received = data_received  # type: ignore[method-assign]


_SSRC = struct.Struct("!L")


def _datagram_received(self: StunProtocol, data: bytes | str, addr: tuple[Any, ...]) -> None:
    """aioice's reading of a datagram, which first tries every one as STUN (a parse and a
    raised ValueError per media packet): SRTP and SRTCP (RFC 7983: first byte 128–191,
    STUN's is 0–3) go to the connection at once."""
    packet = cast(bytes, data)  # a datagram socket's: bytes, as aioice casts it
    if len(packet) > 1 and 127 < packet[0] < 192:
        self.receiver.data_received(packet, self.local_candidate.component)
    else:
        _original_datagram_received(self, data, addr)


def _receive_srtp(dtls: RTCDtlsTransport, relay: Relay, context: int, data: bytes) -> None:
    """Decrypt (with the receiving session's libsrtp `context`, in one compiled call:
    `_forward.unprotect`) and relay one SRTP packet, counted as aiortc's DTLS transport
    counts it; one that fails is dropped and logged (the socket's reading goes on)."""
    # Not typed (below): the DTLS transport's counters (its stats).
    dtls._RTCDtlsTransport__rx_bytes += len(data)  # type: ignore[attr-defined]
    dtls._RTCDtlsTransport__rx_packets += 1  # type: ignore[attr-defined]
    try:
        relay.receive(_forward.unprotect(_SRTP_UNPROTECT, context, data))
    except pylibsrtp.Error:
        pass  # a replay or a forgery, as aiortc drops it
    except Exception:
        logger.warning("relay receiver failed: %s", traceback.format_exc())


#: An uplink packet still missing is asked for again at every packet that arrives while it
#: is missing (one frame later: a loopback or LAN round trip has passed, so the answer was
#: lost too, as in a burst), at most ASKS times, and only while it is at most ASK_WITHIN
#: packets (200 ms) old: later than that the listeners' jitter buffers have concealed it.
ASKS = 3
ASK_WITHIN = 10


_NOTHING: frozenset[int] = frozenset()


class UplinkNacks:
    """What the SFU asks a publisher for again (stands in for aiortc's `NackGenerator`,
    which asks only at a new gap: a lost retransmission was asked for again at the next
    loss, hundreds of ms later, and every ask repeated 128 packets of stale gaps). Chrome
    resends one packet at most once per round trip, so a repeated ask costs no storm."""

    def __init__(self) -> None:
        self.max_seq: int | None = None
        self._asked: dict[int, int] = {}  # missing seq: times asked
        self.missing: Set[int] = _NOTHING  # the ask of the last `add`

    def add(self, seq: int) -> bool:
        """Note packet `seq` arrived; is there something to ask for now (in `missing`)?"""
        if self.max_seq is None:
            self.max_seq = seq
            return False
        ahead = (seq - self.max_seq) & 0xFFFF
        if ahead == 1 and not self._asked:  # the next packet, nothing missing: most packets
            self.max_seq = seq
            self.missing = _NOTHING
            return False
        if 0 < ahead < 0x8000:
            for gap in range(max(1, ahead - ASK_WITHIN), ahead):  # none older than that
                self._asked[(self.max_seq + gap) & 0xFFFF] = 0
            self.max_seq = seq
        else:
            self._asked.pop(seq, None)
        top = self.max_seq
        for lost in [s for s in self._asked if (top - s) & 0xFFFF > ASK_WITHIN]:
            del self._asked[lost]
        self.missing = {s for s, times in self._asked.items() if times < ASKS}
        for lost in self.missing:
            self._asked[lost] += 1
        return bool(self.missing)


async def _send(self: RTCRtpSender, parameters: RTCRtpSendParameters) -> None:
    """aiortc's `send`, the negotiated payload types noted first: a relayed packet goes
    with the type of what it carries (Opus, or RED where the listener has it)."""
    # Not typed (next line): the sender's negotiated types, kept on it for `_run_rtp`.
    self._svara_types = {c.name.lower(): c.payloadType for c in parameters.codecs}  # type: ignore[attr-defined]
    await _original_send(self, parameters)


async def _retransmit(self: RTCRtpSender, sequence_number: int) -> None:
    """A listener's NACK: a relayed stream answers from its own history (`_Sending`)."""
    sending: _Sending | None = getattr(self, "_svara_sending", None)
    if sending is None:
        await _original_retransmit(self, sequence_number)
    elif sending.retransmit(sequence_number):
        Counters.retransmitted += 1


#: A listener's NACKs are answered for each kept packet at most this many times, and not
#: again within this many seconds (a frame): a receiver that asks for the same packets at
#: every new gap (aiortc's NackGenerator does) or faster than they can arrive gets each
#: one again, not a storm (mediasoup likewise resends a packet at most once per RTT).
MAX_RETRANSMITS = 3
RETRANSMIT_INTERVAL = 0.02


class Resends:
    """Which NACKed packets of one outgoing stream are sent again (pure: unit-tested)."""

    def __init__(self) -> None:
        self._sent: dict[int, tuple[int, int, float]] = {}  # at: seq, times, when last

    def allow(self, sequence_number: int, now: float) -> bool:
        """May `sequence_number` be sent again `now`? (Counted when it may.)"""
        at = sequence_number % RTP_HISTORY_SIZE
        seq, times, last = self._sent.get(at, (-1, 0, 0.0))
        if seq != sequence_number:
            times = 0
        elif times >= MAX_RETRANSMITS or now - last < RETRANSMIT_INTERVAL:
            return False
        self._sent[at] = sequence_number, times + 1, now
        return True


#: Seconds between a sender's RTCP reports (sender report + SDES), on average: libwebrtc's
#: for an audio stream (`kDefaultAudioReportInterval`), varied over 0.5–1.5 times as RFC 3550
#: asks. aiortc's senders report every 0.5–1.5 s, like video: 56 reports a second at a full
#: table, a fixed cost of every connection (docs/performance.md «The receive path without
#: aiortc's receiver»). A listener's browser needs them for no audio-only purpose (no lip
#: sync); the receiver reports of the mics, which the browsers' FEC and the connection marks
#: read, keep aiortc's interval.
SENDER_REPORT_INTERVAL = 5.0


class _SenderReportPace:
    """Stands in for the `random` module in aiortc.rtcrtpsender, whose only use is the RTCP
    loop's `await asyncio.sleep(0.5 + random.random())` (tested): that sleep becomes
    SENDER_REPORT_INTERVAL × 0.5–1.5."""

    @staticmethod
    def random() -> float:
        return SENDER_REPORT_INTERVAL * (0.5 + random.random()) - 0.5


#: Seconds from the NTP epoch (1900) to the Unix epoch (1970).
NTP_UNIX_OFFSET = 2208988800


def current_ms() -> int:
    """aiortc's `clock.current_ms` (milliseconds since 1900), which its DTLS transport reads
    for every received packet, without building two datetimes and a timedelta."""
    return int((time.time() + NTP_UNIX_OFFSET) * 1000)


def _address(pointer: Any) -> int:
    return int(_srtp_ffi.cast("uintptr_t", pointer))


#: The addresses of libsrtp's `srtp_protect` and `srtp_unprotect` in pylibsrtp's binding
#: (which links libsrtp statically): the compiled forwarding calls the same libsrtp, on
#: aiortc's sessions.
_SRTP_PROTECT = _address(_srtp_ffi.addressof(_srtp_lib, "srtp_protect"))
_SRTP_UNPROTECT = _address(_srtp_ffi.addressof(_srtp_lib, "srtp_unprotect"))


def _context(session: pylibsrtp.Session) -> int:
    """The address of `session`'s libsrtp context (`srtp_t`), valid while `session` lives."""
    # pylibsrtp's private libsrtp context (untyped there).
    return _address(session._srtp[0])


class _Sending(_forward.Stream):
    """One listener's outgoing stream of relayed packets, sent as each one is forwarded.

    aiortc's own sending loop wakes a task per packet per listener, builds an `RtpPacket`,
    serialises its header extensions, reads the clock through datetimes and awaits three
    coroutines down to the socket. Here the publisher's `Listeners` send to every listener
    in one compiled call (rtc/_forward.c, docs/voice-protocol.md «Forwarding»): this
    stream's numbers, the header (this sender's fixed bytes with the payload type, marker
    and numbers written in), the listener's SRTP session, the UDP socket of the ICE pair in
    use; the sender's counters and clock pair as aiortc keeps them (its RTCP sender reports
    read them), and the last RTP_HISTORY_SIZE packets in `history` for NACKs, answered
    here. What the compiled path leaves to Python: `retarget` (a new ICE pair), `relay` (a
    TURN relay, which frames the data itself) and `fail`.
    """

    def __init__(
        self, sender: RTCRtpSender, codec: RTCRtpCodecParameters, track: RelayedTrack
    ) -> None:
        dtls = sender.transport
        # Not typed (below): aiortc's private sender state, as its own loop uses it.
        extensions = sender._RTCRtpSender__rtp_header_extensions_map  # type: ignore[attr-defined]
        template = RtpPacket(payload_type=0)
        template.ssrc = sender._ssrc
        template.extensions.mid = sender._RTCRtpSender__mid  # type: ignore[attr-defined]
        # The fixed bytes of the header (aiortc negotiates no abs-send-time for audio): the
        # first (version, extension bit), then the SSRC and the extensions (the mid).
        fixed = template.serialize(extensions)
        types = getattr(sender, "_svara_types", None) or {"opus": codec.payloadType}
        session = dtls._tx_srtp
        self.history: list[bytes | None] = [None] * RTP_HISTORY_SIZE
        super().__init__(
            sender=sender,
            dtls=dtls,
            connected=DtlsState.CONNECTED,
            first=fixed[0],
            rest=fixed[8:],
            history=self.history,
            opus=types.get("opus"),
            red=types.get("red"),
            origins=(random_sequence_number(), random32()),
            protect=_SRTP_PROTECT,
            srtp=_context(session),  # kept alive by `session`
            session=session,
            nominated=dtls.transport._connection._nominated,
        )
        self._track = track
        self._dtls = dtls
        self._resent = Resends()

    def retarget(self, pair: CandidatePair | None) -> None:
        """The ICE pair in use is `pair` (the first, or another the browser nominated):
        its UDP socket is written directly, a TURN relay's through `relay`."""
        if pair is None:
            self.target(None, None, None, "", 0)
            return
        protocol = pair.protocol
        # The transport's socket, asyncio's or uvloop's (rtc/ice.py): its descriptor and family.
        sock = (
            protocol.transport.get_extra_info("socket") if type(protocol) is StunProtocol else None
        )
        host, port = pair.remote_addr[:2]
        self.target(pair, protocol, sock, host, port)

    def relay(self, protected: bytes) -> None:
        """Send one SRTP packet where the compiled path does not: through a TURN relay."""
        transmit(self._dtls, protected)

    def fail(self, error: BaseException) -> None:
        """This listener's stream failed: logged, as aiortc's own loop does, and his gate
        stopped; one listener's broken stream never stops the publisher's forwarding."""
        logger.warning("relay sender failed: %s", "".join(traceback.format_exception(error)))
        self._track.stop()

    def retransmit(self, sequence_number: int) -> bool:
        """Send the packet `sequence_number` again if it is still kept, at most
        MAX_RETRANSMITS times and not twice within RETRANSMIT_INTERVAL; was it sent?"""
        data = self.history[sequence_number % RTP_HISTORY_SIZE]
        if data is None or int.from_bytes(data[2:4], "big") != sequence_number:
            return False
        if not self._resent.allow(sequence_number, time.monotonic()):
            return False
        dtls = self._dtls
        if dtls._state is DtlsState.CONNECTED:
            transmit(dtls, protect(dtls._tx_srtp, data))
        return True


#: The length in and out of `srtp_protect`, shared: only the event loop's thread protects.
_length = _srtp_ffi.new("int *")
#: The longest RTP packet `protect` takes: pylibsrtp's buffer (1500 bytes) less SRTP's
#: longest trailer, as its own `protect` checks.
_MAX_PLAIN = 1500 - pylibsrtp.SRTP_MAX_TRAILER_LEN


def protect(session: pylibsrtp.Session, packet: bytes) -> bytes:
    """`session.protect(packet)` in one call down to libsrtp: pylibsrtp's own makes two
    Python calls, a type check and a new C `int` per packet (docs/performance.md «The send
    path»). It reads the session's private buffer and context: pylibsrtp is pinned
    (PYLIBSRTP_VERSION) and the bytes are tested against `Session.protect`."""
    size = len(packet)
    if size > _MAX_PLAIN:
        raise ValueError("packet is too long")
    # pylibsrtp's private C buffer (1500 bytes) and libsrtp context (untyped there).
    buffer = session._buffer
    buffer[0:size] = packet
    _length[0] = size
    error = _srtp_lib.srtp_protect(session._srtp[0], session._cdata, _length)
    if error:
        raise pylibsrtp.Error(f"srtp_protect failed: {error}")
    return buffer[0 : _length[0]]


#: Sends through a TURN relay under way (each removed when done).
_relaying: set[asyncio.Future[None]] = set()


def transmit(dtls: RTCDtlsTransport, protected: bytes) -> None:
    """Send one SRTP or SRTCP packet, as RTCDtlsTransport._send_rtp and aioice's
    Connection.send do, on the UDP socket of the ICE pair in use (dropped without one)."""
    pair: CandidatePair | None = dtls.transport._connection._nominated.get(1)
    if pair is None:
        return
    protocol = pair.protocol
    if type(protocol) is StunProtocol:  # a host or server-reflexive candidate: UDP
        send_datagram(protocol, protected, pair.remote_addr)
    else:  # a TURN relay frames the data itself
        task = asyncio.ensure_future(protocol.send_data(protected, pair.remote_addr))
        _relaying.add(task)
        task.add_done_callback(_relaying.discard)
    # Not typed (below): the DTLS transport's counters (its stats).
    dtls._RTCDtlsTransport__tx_bytes += len(protected)  # type: ignore[attr-defined]
    dtls._RTCDtlsTransport__tx_packets += 1  # type: ignore[attr-defined]


def send_datagram(protocol: StunProtocol, data: bytes, address: tuple[str, int]) -> None:
    """Write one datagram on `protocol`'s UDP socket, or drop it when the socket's send
    buffer is full: a late voice packet is worth nothing, and the loop's transport would
    queue every one until the socket drains, without bound. Other errors go where the
    transport sends them (`error_received`: aioice logs them)."""
    transport = protocol.transport
    # Not typed (next line): asyncio's selector transport keeps its socket as `_sock`.
    sock = getattr(transport, "_sock", None)
    if sock is None:  # uvloop's transport (the SFU's loop, rtc/ice.py): its own sendto,
        # which holds one while the socket is full. Not typed (next line): uvloop's UDP
        # transport has the size, typeshed's DatagramTransport does not.
        if transport.get_write_buffer_size():  # type: ignore[attr-defined]
            Counters.send_dropped += 1
        else:
            transport.sendto(data, address)
        return
    try:
        sock.sendto(data, address)
    except (BlockingIOError, InterruptedError):
        Counters.send_dropped += 1
    except OSError as error:
        protocol.error_received(error)


async def _run_rtp(self: RTCRtpSender, codec: RTCRtpCodecParameters) -> None:
    """aiortc's sending loop, except for a RelayedTrack: its packets keep their numbers and
    are sent as they are forwarded (`_Sending`); the loop only waits for the track's end."""
    if not isinstance(self.track, RelayedTrack):
        await _original_run_rtp(self, codec)
        return
    # Not typed (below): aiortc's private sender state, as its own loop keeps it.
    self._RTCRtpSender__rtp_started.set()  # type: ignore[attr-defined]
    track = self.track
    sending = _Sending(self, codec, track)
    self._svara_sending = sending  # type: ignore[attr-defined]
    try:
        track.attach(sending)
        await track.ended()
    except asyncio.CancelledError:
        pass
    track.stop()
    self._RTCRtpSender__track = None  # type: ignore[attr-defined]
    self._RTCRtpSender__rtp_exited.set()  # type: ignore[attr-defined]


def _decoder_worker(loop: Any, input_q: Any, output_q: Any, decode_error: Any) -> None:
    """aiortc still starts its decoder thread; for a direct queue it ends at once."""
    if not isinstance(input_q, _DirectQueue):
        _original_decoder_worker(loop, input_q, output_q, decode_error)


def _relay_codecs() -> list[RTCRtpCodecParameters]:
    """aiortc's audio codecs with NACK for Opus, and RED beside it (this process only)."""
    codecs = []
    for codec in _original_audio_codecs:
        codec = copy.deepcopy(codec)
        if codec.name.lower() == "opus":
            codec.rtcpFeedback = [*codec.rtcpFeedback, NACK]
            codecs += [codec, copy.deepcopy(RED_CODEC)]
        else:
            codecs.append(codec)
    return codecs


def install() -> None:
    """Make every audio receiver in this process pass Opus through (the SFU process)."""
    # Not typed (below): patched for the SFU's process only, restored by uninstall().
    RTCRtpReceiver.receive = _receive  # type: ignore[method-assign]
    RTCDtlsTransport._handle_rtp_data = _handle_rtp_data  # type: ignore[method-assign]
    StunProtocol.datagram_received = _datagram_received  # type: ignore[method-assign]
    RTCRtpSender.send = _send  # type: ignore[method-assign]
    RTCRtpSender._retransmit = _retransmit  # type: ignore[method-assign]
    RTCRtpSender._run_rtp = _run_rtp  # type: ignore[method-assign]
    _receiver_module.decoder_worker = _decoder_worker
    # Not typed (next line): the module's name `random`, read by its RTCP loop only.
    _sender_module.random = _SenderReportPace  # type: ignore[assignment]
    CODECS["audio"][:] = _relay_codecs()
    clock.current_ms = current_ms


def uninstall() -> None:
    """Restore aiortc's own receiving (decoding) path."""
    # Not typed (below): the patch undone.
    RTCRtpReceiver.receive = _original_receive  # type: ignore[method-assign]
    RTCDtlsTransport._handle_rtp_data = _original_handle_rtp_data  # type: ignore[method-assign]
    StunProtocol.datagram_received = _original_datagram_received  # type: ignore[method-assign]
    RTCRtpSender.send = _original_send  # type: ignore[method-assign]
    RTCRtpSender._retransmit = _original_retransmit  # type: ignore[method-assign]
    RTCRtpSender._run_rtp = _original_run_rtp  # type: ignore[method-assign]
    _receiver_module.decoder_worker = _original_decoder_worker
    _sender_module.random = _original_sender_random
    CODECS["audio"][:] = _original_audio_codecs
    clock.current_ms = _original_current_ms


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
    which aiortc negotiates but does not expose; the receiver's `Relay` reads it, which
    gives speaking indicators without decoding (the SFU's process: `install`).
    """
    relay_of(receiver).on_level = on_level


def forward_from(receiver: RTCRtpReceiver, on_packet: Callable[[OpusPacket], None]) -> None:
    """Hand each packet `receiver` relays to `on_packet` as the socket's callback reads it,
    not into its track's queue (the SFU's process: `install`): the SFU forwards it from
    there, without a task woken per packet (docs/voice-protocol.md «Forwarding»)."""
    relay_of(receiver).on_packet = on_packet


def level_to_amplitude(dbov: int) -> float:
    """RFC 6464 level (0 = loudest … 127 = silence, in −dBov) as a 0..1 amplitude."""
    return 0.0 if dbov >= 127 else 10 ** (-dbov / 20)


def opus_answer(answer: str, offer: str) -> str:
    """`answer` asking the browser for Opus in-band FEC, and for DTX if its offer has it.

    aiortc's Opus codec has no parameters, so its answer has no fmtp line and Chrome never
    sends FEC; with `useinbandfec=1` its encoder adds it as the SFU's receiver reports
    loss, and the listener's browser recovers a lost packet from the next one. DTX
    (`usedtx=1`) only when the page offered it: it changes what a silent mic sends.
    """
    offered_dtx = any(
        str(codec.parameters.get("usedtx")) == "1"  # aiortc keeps unknown parameters as text
        for media in SessionDescription.parse(offer).media
        for codec in media.rtp.codecs
        if codec.name.lower() == "opus"
    )
    description = SessionDescription.parse(answer)
    for media in description.media:
        opus = next((c for c in media.rtp.codecs if c.name.lower() == "opus"), None)
        for codec in media.rtp.codecs:
            if codec is opus:
                codec.parameters["useinbandfec"] = 1
                if offered_dtx:
                    codec.parameters["usedtx"] = 1
            elif codec.name.lower() == "red" and opus is not None:
                # RFC 2198's fmtp: the blocks are this side's Opus (a primary, one redundant).
                codec.parameters = {f"{opus.payloadType}/{opus.payloadType}": None}
    return str(description)
