"""The hooks into aiortc internals (rtc.passthrough) against the pinned aiortc version."""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import itertools
import random
import statistics
import time
import tomllib
from pathlib import Path

import aiortc.clock
import aiortc.rtcrtpreceiver
import aiortc.rtcrtpsender
import pylibsrtp
import pytest
import uvloop
from aioice.ice import StunProtocol
from aiortc import RTCConfiguration, RTCPeerConnection
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from aiortc.rtcrtpsender import RTP_HISTORY_SIZE
from aiortc.rtp import (
    AnyRtcpPacket,
    RtcpReceiverInfo,
    RtcpRrPacket,
    RtcpRtpfbPacket,
    RtpPacket,
)
from aiortc.sdp import SessionDescription

from rtc import _forward, passthrough
from rtc.gate import GateTrack
from rtc.passthrough import (
    AIORTC_VERSION,
    ASK_WITHIN,
    ASKS,
    MAX_RETRANSMITS,
    PYLIBSRTP_VERSION,
    RETRANSMIT_INTERVAL,
    SENDER_REPORT_INTERVAL,
    Counters,
    Listeners,
    OpusPacket,
    Relay,
    Resends,
    UplinkNacks,
    forward_from,
    level_to_amplitude,
    opus_answer,
    protect,
    send_datagram,
    watch_levels,
)
from tests.voicekit import EncodedToneTrack, ToneTrack

ROOT = Path(__file__).resolve().parents[2]


def push(gate: GateTrack, packet: OpusPacket, source: object) -> None:
    """Forward `packet` of `source` to `gate`'s listener alone, as rtc.sfu forwards to all."""
    Listeners([gate.stream] if gate.stream is not None else []).send(
        packet, source, time.monotonic()
    )


def test_aiortc_is_pinned_to_the_version_the_hooks_were_written_for() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert f"aiortc=={AIORTC_VERSION}" in pyproject["project"]["dependencies"]
    assert importlib.metadata.version("aiortc") == AIORTC_VERSION
    assert f"pylibsrtp=={PYLIBSRTP_VERSION}" in pyproject["project"]["dependencies"]
    assert importlib.metadata.version("pylibsrtp") == PYLIBSRTP_VERSION


def _srtp_session(key: bytes) -> pylibsrtp.Session:
    """An outbound SRTP session as aiortc's DTLS transport makes one."""
    policy = pylibsrtp.Policy(key=key, ssrc_type=pylibsrtp.Policy.SSRC_ANY_OUTBOUND)
    policy.allow_repeat_tx = True
    return pylibsrtp.Session(policy)


def test_the_fast_protect_encrypts_as_pylibsrtp_does() -> None:
    """`protect` (libsrtp called directly, the send path's) gives pylibsrtp's bytes for
    packets of two streams and a repeat (a NACK's answer), and refuses what pylibsrtp
    refuses."""
    key = random.Random(7).randbytes(30)
    ours, theirs = _srtp_session(key), _srtp_session(key)
    for seq, ssrc, size in [(1, 11, 40), (2, 11, 300), (1, 22, 12), (2, 11, 300), (3, 11, 1300)]:
        packet = b"\x80\x6f" + seq.to_bytes(2, "big") + bytes(4) + ssrc.to_bytes(4, "big")
        packet += bytes(range(256)) * (size // 256) + bytes(size % 256)
        assert protect(ours, packet) == theirs.protect(packet)
    too_long = bytes(1500)
    with pytest.raises(ValueError):
        theirs.protect(too_long)
    with pytest.raises(ValueError):
        protect(ours, too_long)


def _srtp_inbound(key: bytes) -> pylibsrtp.Session:
    """An inbound SRTP session as aiortc's DTLS transport makes one."""
    return pylibsrtp.Session(pylibsrtp.Policy(key=key, ssrc_type=pylibsrtp.Policy.SSRC_ANY_INBOUND))


def test_the_compiled_unprotect_decrypts_as_pylibsrtp_does_and_refuses_what_it_refuses() -> None:
    """The receive path's decryption (`_forward.unprotect` on a session's context) gives
    pylibsrtp's bytes for two streams, and raises pylibsrtp's error for a replay and a
    forged packet, ValueError for a packet too long, TypeError for what is not bytes."""
    key = random.Random(11).randbytes(30)
    sender, ours, theirs = _srtp_session(key), _srtp_inbound(key), _srtp_inbound(key)
    context = passthrough._context(ours)
    unprotect = passthrough._SRTP_UNPROTECT
    for seq, ssrc, size in [(1, 11, 40), (2, 11, 300), (1, 22, 12), (3, 11, 1300)]:
        packet = b"\x80\x6f" + seq.to_bytes(2, "big") + bytes(4) + ssrc.to_bytes(4, "big")
        packet += bytes(range(256)) * (size // 256) + bytes(size % 256)
        protected = sender.protect(packet)
        assert _forward.unprotect(unprotect, context, protected) == packet
        assert theirs.unprotect(protected) == packet
        with pytest.raises(pylibsrtp.Error):  # the same packet again: a replay
            _forward.unprotect(unprotect, context, protected)
    forged = bytearray(sender.protect(b"\x80\x6f\x00\x04" + bytes(4) + (11).to_bytes(4, "big")))
    forged[14] ^= 1
    with pytest.raises(pylibsrtp.Error):
        _forward.unprotect(unprotect, context, bytes(forged))
    with pytest.raises(ValueError):
        _forward.unprotect(unprotect, context, bytes(1501))
    with pytest.raises(TypeError):
        _forward.unprotect(unprotect, context, bytearray(40))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        _forward.unprotect(unprotect, 0, protected)


class _Socket:
    """A UDP socket whose send buffer is full, or failing with `error`."""

    def __init__(self, error: OSError) -> None:
        self.error = error
        self.tries = 0

    def sendto(self, data: bytes, address: tuple[str, int]) -> int:
        self.tries += 1
        raise self.error


class _Inbox(asyncio.DatagramProtocol):
    """The datagrams a UDP socket receives, in a queue."""

    def __init__(self) -> None:
        self.got: asyncio.Queue[bytes] = asyncio.Queue()

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        self.got.put_nowait(data)


def test_a_datagram_at_a_full_send_buffer_is_dropped_not_queued() -> None:
    """`send_datagram` writes to the socket itself: EAGAIN drops the packet and counts it
    (asyncio's transport would queue it, without bound); another error goes to the
    protocol's `error_received`, as asyncio's transport sends it; nothing is raised."""

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        listener, inbox = await loop.create_datagram_endpoint(_Inbox, local_addr=("127.0.0.1", 0))
        got = inbox.got
        address = listener.get_extra_info("sockname")
        transport, protocol = await loop.create_datagram_endpoint(
            lambda: StunProtocol(None),
            local_addr=("127.0.0.1", 0),  # type: ignore[arg-type]
        )
        try:
            send_datagram(protocol, b"first", address)  # a real socket: delivered
            assert await asyncio.wait_for(got.get(), timeout=5) == b"first"
            real = transport._sock  # type: ignore[attr-defined]
            full = _Socket(BlockingIOError())
            transport._sock = full  # type: ignore[attr-defined]
            dropped = Counters.send_dropped
            send_datagram(protocol, b"lost", address)
            send_datagram(protocol, b"lost too", address)
            assert (full.tries, Counters.send_dropped - dropped) == (2, 2)
            assert not transport._buffer  # type: ignore[attr-defined]  # nothing queued
            errors: list[Exception] = []
            protocol.error_received = errors.append  # type: ignore[method-assign]
            refused = ConnectionRefusedError()
            transport._sock = _Socket(refused)  # type: ignore[attr-defined]
            send_datagram(protocol, b"refused", address)
            assert errors == [refused]
            transport._sock = real  # type: ignore[attr-defined]
            send_datagram(protocol, b"again", address)
            assert await asyncio.wait_for(got.get(), timeout=5) == b"again"
        finally:
            transport.close()
            listener.close()

    asyncio.run(scenario())


class _Held:
    """uvloop's transport of a UDP socket whose buffer is full: it holds a datagram."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def get_write_buffer_size(self) -> int:
        return 1

    def sendto(self, data: bytes, address: object) -> None:
        self.sent.append(data)


def test_on_uvloop_a_datagram_goes_out_and_none_piles_up_behind_a_full_socket() -> None:
    """The SFU's own loop (rtc/ice.py): `send_datagram` writes through uvloop's transport,
    which has no `_sock`; while that transport still holds a datagram (its socket's buffer
    was full) the next ones are dropped and counted, not queued behind it."""

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, uvloop.Loop)
        listener, inbox = await loop.create_datagram_endpoint(_Inbox, local_addr=("127.0.0.1", 0))
        transport, protocol = await loop.create_datagram_endpoint(
            lambda: StunProtocol(None),
            local_addr=("127.0.0.1", 0),  # type: ignore[arg-type]
        )
        try:
            send_datagram(protocol, b"first", listener.get_extra_info("sockname"))
            assert await asyncio.wait_for(inbox.got.get(), timeout=5) == b"first"
        finally:
            transport.close()
            listener.close()
        held = _Held()
        protocol.transport = held  # type: ignore[assignment]
        dropped = Counters.send_dropped
        send_datagram(protocol, b"lost", ("127.0.0.1", 9))
        assert (held.sent, Counters.send_dropped - dropped) == ([], 1)

    uvloop.run(scenario())


async def _connect(track: MediaStreamTrack) -> tuple[RTCPeerConnection, RTCPeerConnection]:
    """Sender with `track` → receiver, in-process over loopback."""
    sender = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    receiver = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    sender.addTransceiver(track, direction="sendonly")
    await sender.setLocalDescription(await sender.createOffer())
    await receiver.setRemoteDescription(sender.localDescription)
    await receiver.setLocalDescription(await receiver.createAnswer())
    await sender.setRemoteDescription(receiver.localDescription)
    return sender, receiver


def test_receiver_yields_opus_packets_and_audio_levels() -> None:
    """With the hook, a receiver's track gives the encoded frames, not decoded audio."""

    async def scenario() -> None:
        with passthrough.installed():
            assert aiortc.rtcrtpreceiver.decoder_worker is not passthrough._original_decoder_worker
            sender, receiver = await _connect(ToneTrack(amplitude=0.5))
            transceiver = receiver.getTransceivers()[0]
            levels: list[int] = []
            watch_levels(transceiver.receiver, levels.append)
            track = transceiver.receiver.track
            packets = [await track.recv() for _ in range(20)]
            decoder = transceiver.receiver._RTCRtpReceiver__decoder_thread
            assert decoder is not None and not decoder.is_alive()  # no thread hop per packet
            await sender.close()
            await receiver.close()
            with pytest.raises(MediaStreamError):  # the end still reaches the track
                while True:
                    await asyncio.wait_for(track.recv(), timeout=5)
        assert aiortc.rtcrtpreceiver.decoder_worker is passthrough._original_decoder_worker
        assert aiortc.RTCRtpReceiver.receive is passthrough._original_receive
        assert StunProtocol.datagram_received is passthrough._original_datagram_received
        assert all(isinstance(p, OpusPacket) and len(p.data) > 0 for p in packets)
        steps = {b.pts - a.pts for a, b in itertools.pairwise(packets)}
        assert steps == {960}  # 20 ms at 48 kHz, timestamps kept
        assert levels and min(levels) < 20  # a loud tone: near 0 dBov
        assert level_to_amplitude(min(levels)) > 0.1

    asyncio.run(scenario())


def test_a_forwarded_receiver_hands_each_packet_on_from_the_socket_callback() -> None:
    """`forward_from`: each packet reaches the forwarding in order as the socket's callback
    reads it, in no task (none is woken per packet), and none waits in the track's queue."""

    async def scenario() -> None:
        with passthrough.installed():
            sender = RTCPeerConnection(RTCConfiguration(iceServers=[]))
            receiver = RTCPeerConnection(RTCConfiguration(iceServers=[]))
            sender.addTransceiver(ToneTrack(amplitude=0.5), direction="sendonly")
            await sender.setLocalDescription(await sender.createOffer())
            await receiver.setRemoteDescription(sender.localDescription)
            mic = receiver.getTransceivers()[0].receiver
            handed: list[tuple[OpusPacket, bool, int]] = []
            done = asyncio.Event()

            def on_packet(packet: OpusPacket) -> None:
                in_task = asyncio.current_task() is not None
                handed.append((packet, in_task, mic.track._queue.qsize()))
                if len(handed) == 30:
                    done.set()

            forward_from(mic, on_packet)  # before aiortc starts the receiver, as rtc.sfu
            await receiver.setLocalDescription(await receiver.createAnswer())
            await sender.setRemoteDescription(receiver.localDescription)
            await asyncio.wait_for(done.wait(), timeout=10)
            await sender.close()
            await receiver.close()
        seqs = [packet.seq for packet, _, _ in handed]
        assert seqs == [(seqs[0] + i) & 0xFFFF for i in range(len(seqs))]  # in order, all
        # Past a stream's first packets (aiortc's DTLS task, until its router knows the
        # SSRC) every one comes straight from the socket's callback.
        assert [in_task for _, in_task, _ in handed[10:]] == [False] * (len(handed) - 10)
        assert {waiting for _, _, waiting in handed} == {0}

    asyncio.run(scenario())


def test_sender_sends_opus_packets_unchanged() -> None:
    """An aiortc sender packs OpusPackets as they are: the far end decodes real audio."""

    async def scenario() -> None:
        sender, receiver = await _connect(EncodedToneTrack())
        track = receiver.getTransceivers()[0].receiver.track
        frames = [await track.recv() for _ in range(10)]
        await sender.close()
        await receiver.close()
        loudest = max(max(abs(s) for s in memoryview(bytes(f.planes[0])).cast("h")) for f in frames)
        assert loudest > 3000  # a 0.3-amplitude tone survived encode → forward → decode

    asyncio.run(scenario())


def test_level_to_amplitude() -> None:
    assert level_to_amplitude(0) == 1.0
    assert level_to_amplitude(127) == 0.0
    assert 0.09 < level_to_amplitude(20) < 0.11


def _opus_fmtp(sdp: str) -> dict[str, str]:
    description = SessionDescription.parse(sdp)
    (codec,) = [c for c in description.media[0].rtp.codecs if c.name.lower() == "opus"]
    return {name: str(value) for name, value in codec.parameters.items()}


def test_the_answer_asks_for_in_band_fec_and_for_dtx_only_when_offered() -> None:
    async def scenario() -> None:
        offerer = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        offerer.addTransceiver("audio", direction="sendrecv")
        await offerer.setLocalDescription(await offerer.createOffer())
        answerer = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        await answerer.setRemoteDescription(offerer.localDescription)
        await answerer.setLocalDescription(await answerer.createAnswer())
        offer, answer = offerer.localDescription.sdp, answerer.localDescription.sdp
        await offerer.close()
        await answerer.close()
        assert "useinbandfec" not in answer  # aiortc alone never asks for FEC
        assert _opus_fmtp(opus_answer(answer, offer)) == {"useinbandfec": "1"}
        with_dtx = SessionDescription.parse(offer)
        for codec in with_dtx.media[0].rtp.codecs:
            if codec.name.lower() == "opus":
                codec.parameters.update({"minptime": 10, "useinbandfec": 1, "usedtx": 1})
        tuned = opus_answer(answer, str(with_dtx))
        assert _opus_fmtp(tuned) == {"useinbandfec": "1", "usedtx": "1"}

    asyncio.run(scenario())


def test_a_relayed_stream_reaches_the_listener_as_pushed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A gate's sender writes each pushed packet's header itself (rtc/passthrough.py
    `_Sending`): the far end's aiortc parses the payload, the numbers given, the marker, the
    slot's mid, and hands the frames on in order."""

    headers: list[RtpPacket] = []

    def seen(relay: Relay, data: bytes) -> None:
        headers.append(RtpPacket.parse(data, relay._receiver.transport._rtp_header_extensions_map))
        receive(relay, data)

    async def scenario() -> None:
        with passthrough.installed():
            gate = GateTrack()
            sender, receiver = await _connect(gate)
            transceiver = receiver.getTransceivers()[0]
            track = transceiver.receiver.track
            source = object()

            async def pushing() -> None:
                for seq in range(1000):  # until the connection is up and the test has read
                    push(gate, OpusPacket(b"\xfc" + bytes([seq % 256]), seq * 960, seq), source)
                    await asyncio.sleep(0.005)

            pusher = asyncio.create_task(pushing())
            got = [await asyncio.wait_for(track.recv(), timeout=15) for _ in range(10)]
            pusher.cancel()
            await sender.close()
            await receiver.close()
        assert all(isinstance(p, OpusPacket) and p.data[0] == 0xFC for p in got)
        assert [b.seq - a.seq for a, b in itertools.pairwise(got)] == [1] * 9
        assert {b.pts - a.pts for a, b in itertools.pairwise(got)} == {960}
        assert [(p.data[1] - got[0].data[1]) % 256 for p in got] == list(range(10))
        mid = sender.getTransceivers()[0].mid
        assert headers and all(h.extensions.mid == mid for h in headers)
        assert all(h.extensions.abs_send_time is None for h in headers)  # audio: not negotiated

    receive = Relay.receive
    monkeypatch.setattr(Relay, "receive", seen)
    asyncio.run(scenario())


def test_a_listener_whose_send_fails_stops_his_gate_only() -> None:
    """A failure in one listener's send (here a packet too long for SRTP) is logged and
    stops his gate (`_Sending.fail`): the publisher's forwarding never raises, and the gate
    takes no more packets."""

    async def scenario() -> None:
        with passthrough.installed():
            gate = GateTrack()
            sender, receiver = await _connect(gate)
            track = receiver.getTransceivers()[0].receiver.track
            source = object()
            seq = 0
            while True:  # until the listener hears the gate
                push(gate, OpusPacket(b"\xfc\x01", seq * 960, seq), source)
                seq += 1
                try:
                    await asyncio.wait_for(track.recv(), timeout=0.05)
                    break
                except TimeoutError:
                    assert seq < 300, "the relayed stream never arrived"
            too_long = b"\xfc" + bytes(1400)
            push(gate, OpusPacket(too_long, seq * 960, seq), source)  # raises nothing
            assert gate.readyState == "ended" and gate.stream is None
            push(gate, OpusPacket(b"\xfc\x03", (seq + 1) * 960, seq + 1), source)
            await sender.close()
            await receiver.close()

    asyncio.run(scenario())


def test_the_relay_reports_uplink_loss_and_asks_for_it_again() -> None:
    """Received RTP skips aiortc's receiver (rtc/passthrough.py `Relay`, from the socket),
    yet the receiver reports count what the uplink lost and each lost packet is asked for
    again (NACK) up to ASKS times; the track gets every other packet, in order."""
    gone = (10, 11, 20, 30, 31)  # after the first packet read; 10–11 a burst

    async def scenario() -> None:
        with passthrough.installed():
            sender, receiver = await _connect(EncodedToneTrack())
            mic = receiver.getTransceivers()[0].receiver
            first = await asyncio.wait_for(mic.track.recv(), timeout=15)
            lost = {(first.seq + step) & 0xFFFF for step in gone}
            connection = mic.transport.transport._connection
            reads = connection.data_received  # the Relay's path, installed by now

            def dropping(data: bytes, component: int) -> None:
                rtcp = 191 < data[1] < 209  # RFC 5761's packet types 200–204 (and the rest)
                if rtcp or int.from_bytes(data[2:4], "big") not in lost:
                    reads(data, component)

            connection.data_received = dropping  # type: ignore[method-assign]
            rtp_sender = sender.getTransceivers()[0].sender
            handle = rtp_sender._handle_rtcp_packet
            asked: list[int] = []
            reports: asyncio.Queue[RtcpReceiverInfo] = asyncio.Queue()

            async def seen(packet: AnyRtcpPacket) -> None:
                if isinstance(packet, RtcpRtpfbPacket):
                    asked.extend(packet.lost)
                elif isinstance(packet, RtcpRrPacket):
                    for report in packet.reports:
                        reports.put_nowait(report)
                await handle(packet)

            rtp_sender._handle_rtcp_packet = seen  # type: ignore[method-assign]
            got = [first.seq]
            while (got[-1] - first.seq) & 0xFFFF < max(gone) + ASK_WITHIN:
                got.append((await asyncio.wait_for(mic.track.recv(), timeout=5)).seq)
            while True:  # the first report after the asks' window (one every 0.5–1.5 s)
                report = await asyncio.wait_for(reports.get(), timeout=5)
                if (report.highest_sequence - first.seq) & 0xFFFF >= max(gone) + ASK_WITHIN:
                    break
            await sender.close()
            await receiver.close()
        assert report.ssrc == rtp_sender._ssrc
        assert report.packets_lost == len(gone)
        expected = [(first.seq + step) & 0xFFFF for step in range(len(got) + len(gone))]
        assert got == [seq for seq in expected if seq not in lost]
        assert set(asked) == lost
        assert all(1 <= asked.count(seq) <= ASKS for seq in lost)

    asyncio.run(scenario())


def test_a_nacked_packet_is_sent_again_a_few_times_not_at_every_ask() -> None:
    """A receiver asking for the same packets over and over (aiortc's NackGenerator repeats
    every missing one at each new gap) gets each at most MAX_RETRANSMITS times, not twice
    within RETRANSMIT_INTERVAL; a newer packet at the same place in the history is new."""
    resends = Resends()
    step = RETRANSMIT_INTERVAL
    assert resends.allow(7, 0.0)
    assert not resends.allow(7, step / 2)  # asked again at once: not yet
    answered = [resends.allow(7, i * step) for i in range(1, 10)]
    assert answered.count(True) == MAX_RETRANSMITS - 1
    assert resends.allow(8, 0.0)  # another packet has its own count
    assert resends.allow(7 + RTP_HISTORY_SIZE, 10.0)  # the same slot, a newer packet


def _arrive(nacks: UplinkNacks, seq: int) -> list[int] | None:
    """What the SFU asks for as packet `seq` arrives (None: nothing)."""
    return sorted(nacks.missing) if nacks.add(seq) else None


def test_an_uplink_packet_still_missing_is_asked_for_again_while_it_can_help() -> None:
    """A burst loses the retransmission too: the SFU asks again at the next packet, not at
    the next loss (aiortc's NackGenerator, which the SFU used before, asked only at a new
    gap, and fails here), at most ASKS times and never for a packet older than ASK_WITHIN."""
    nacks = UplinkNacks()
    assert _arrive(nacks, 65534) is None
    assert _arrive(nacks, 1) == [0, 65535]  # a gap across the wrap: asked at once
    assert _arrive(nacks, 65535) == [0]  # one came again; the other is asked for again
    assert _arrive(nacks, 2) == [0]
    assert _arrive(nacks, 3) is None  # asked ASKS times: given up
    assert _arrive(nacks, 5) == [4]
    assert _arrive(nacks, 5 + ASK_WITHIN) == list(range(6, 5 + ASK_WITHIN))  # 4 too old now
    assert _arrive(nacks, 1000) == list(range(1000 - ASK_WITHIN, 1000))  # a jump: the newest


def test_the_senders_report_at_the_audio_interval() -> None:
    """aiortc's senders sleep 0.5 + random.random() s between RTCP reports; with the hooks
    SENDER_REPORT_INTERVAL × 0.5–1.5, which holds only while that sleep is the sender
    module's one use of `random` (checked in the pinned aiortc's source)."""
    source = inspect.getsource(aiortc.rtcrtpsender)
    loop = inspect.getsource(aiortc.rtcrtpsender.RTCRtpSender._run_rtcp)
    assert source.count("random.") == 1 and "asyncio.sleep(0.5 + random.random())" in loop
    with passthrough.installed():
        sleeps = [0.5 + aiortc.rtcrtpsender.random.random() for _ in range(1000)]
    assert aiortc.rtcrtpsender.random is random
    assert 0.5 * SENDER_REPORT_INTERVAL <= min(sleeps) < max(sleeps) <= 1.5 * SENDER_REPORT_INTERVAL
    assert abs(statistics.mean(sleeps) - SENDER_REPORT_INTERVAL) < 0.2 * SENDER_REPORT_INTERVAL


def test_the_fast_clock_reads_as_aiortcs() -> None:
    """The SFU's `clock.current_ms` (no datetimes) agrees with aiortc's own."""
    with passthrough.installed():
        assert aiortc.clock.current_ms is passthrough.current_ms
    assert aiortc.clock.current_ms is passthrough._original_current_ms
    ms, theirs_ms = passthrough.current_ms(), passthrough._original_current_ms()
    assert abs(ms - theirs_ms) <= 50  # the same clock, read a moment apart
