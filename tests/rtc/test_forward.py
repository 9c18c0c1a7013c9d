"""The compiled forwarding (rtc/_forward.c) against Python's bytes and pylibsrtp's SRTP: the
same datagrams on the wire, its counters, its drops and its failures, one listener at a time."""

from __future__ import annotations

import asyncio
import random
import socket
import struct
from typing import Any

import aiortc.clock
import pylibsrtp
import pytest
import uvloop
from aiortc.rtcdtlstransport import State as DtlsState

from rtc import _forward
from rtc.passthrough import _SRTP_PROTECT
from tests.rtc.test_passthrough import _srtp_session

SSRC_HEADER = struct.Struct("!L")
MID = b"\xbe\xde\x00\x01\x10\x31\x00\x00"  # the header extension of a slot's sender (mid "1")


class Sender:
    """What the compiled path reads and writes of aiortc's RTCRtpSender."""

    def __init__(self) -> None:
        self._enabled = True
        self._RTCRtpSender__packet_count = 0
        self._RTCRtpSender__octet_count = 0
        self._RTCRtpSender__ntp_timestamp = 0
        self._RTCRtpSender__rtp_timestamp = 0


class Dtls:
    """What it reads and writes of aiortc's RTCDtlsTransport."""

    def __init__(self) -> None:
        self._state = DtlsState.CONNECTED
        self._RTCDtlsTransport__tx_bytes = 0
        self._RTCDtlsTransport__tx_packets = 0


class Pair:
    """An ICE pair: its protocol (whose `error_received` gets socket errors), its socket
    (None: a TURN relay) and the listener's address."""

    def __init__(self, sock: Any, address: tuple[str, int]) -> None:
        self.sock = sock
        self.remote_addr = address
        self.errors: list[OSError] = []
        self.protocol = self

    def error_received(self, error: OSError) -> None:
        self.errors.append(error)


class Stream(_forward.Stream):
    """A listener's stream as rtc.passthrough's `_Sending` makes it, on stand-ins."""

    def __init__(
        self,
        key: bytes,
        ssrc: int,
        origins: tuple[int, int],
        pair: Pair | None,
        red: int | None = 63,
    ) -> None:
        self.sender, self.dtls, self.session = Sender(), Dtls(), _srtp_session(key)
        self.history: list[bytes | None] = [None] * 128
        self.nominated = {1: pair} if pair is not None else {}
        self.relayed: list[bytes] = []
        self.failures: list[BaseException] = []
        self.rest = SSRC_HEADER.pack(ssrc) + MID
        self.origins = origins
        super().__init__(
            sender=self.sender,
            dtls=self.dtls,
            connected=DtlsState.CONNECTED,
            first=0x90,  # version 2, a header extension
            rest=self.rest,
            history=self.history,
            opus=111,
            red=red,
            origins=origins,
            protect=_SRTP_PROTECT,
            srtp=int(pylibsrtp._binding.ffi.cast("uintptr_t", self.session._srtp[0])),
            session=self.session,
            nominated=self.nominated,
        )

    def retarget(self, pair: Pair | None) -> None:
        if pair is None:
            self.target(None, None, None, "", 0)
        else:
            self.target(pair, pair.protocol, pair.sock, *pair.remote_addr)

    def relay(self, data: bytes) -> None:
        self.relayed.append(data)

    def fail(self, error: BaseException) -> None:
        self.failures.append(error)


@pytest.fixture
def inbox() -> Any:
    """A listener's UDP socket on loopback."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.settimeout(5)
        yield sock


@pytest.fixture
def outbox() -> Any:
    """The SFU's UDP socket of a connection."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.setblocking(False)
        yield sock


def plain(stream: Stream, pt: int, marker: int, seq: int, ts: int, payload: bytes) -> bytes:
    """The RTP packet Python's `struct` writes (the send path before the compiled one)."""
    return struct.pack("!BBHL", 0x90, marker << 7 | pt, seq, ts) + stream.rest + payload


def test_the_datagrams_are_pythons_bytes_under_pylibsrtp(inbox: Any, outbox: Any) -> None:
    """Two listeners with their own keys, SSRCs and origins, plain Opus and RED to two kinds:
    each datagram is pylibsrtp's protect of the packet Python writes, numbered as
    `Renumbering` says (a lost packet stays a gap, the numbers wrap); the history holds the
    plain packets, aiortc's counters count them, the clock pair is taken at every 8th
    sequence number, with NTP time as aiortc's."""
    keys = random.Random(3).randbytes(30), random.Random(4).randbytes(30)
    address = inbox.getsockname()
    ours = [
        Stream(keys[0], 11, (65530, 4294967000), Pair(outbox, address)),
        Stream(keys[1], 22, (100, 5), Pair(outbox, address), red=None),
    ]
    theirs = [_srtp_session(keys[0]), _srtp_session(keys[1])]
    assert [s.kind for s in ours] == [(111, 63), (111, None)]
    source = object()
    sent: list[list[bytes]] = [[], []]
    payloads: list[list[bytes]] = [[], []]
    for seq in (1000, 1001, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010):  # 1002 lost
        ts, marker, red = seq * 960, int(seq == 1000), seq == 1004
        variants = {(111, 63): (63, b"red!"), (111, None): (111, b"opus")} if red else None
        data = b"\xfc%d" % seq
        assert _forward.forward(ours, data, seq, ts, marker, variants, source, 0.0) == 0
        for i, stream in enumerate(ours):
            out_seq = (stream.origins[0] + seq - 1000) & 0xFFFF
            out_ts = (stream.origins[1] + ts) & 0xFFFFFFFF  # a source's first: kept
            pt, payload = ((63, b"red!") if i == 0 else (111, b"opus")) if red else (111, data)
            packet = plain(stream, pt, marker, out_seq, out_ts, payload)
            assert stream.history[out_seq % 128] == packet
            sent[i].append(theirs[i].protect(packet))
            payloads[i].append(payload)
    got = [inbox.recv(1500) for _ in range(20)]
    assert sorted(got) == sorted(sent[0] + sent[1])
    for i, stream in enumerate(ours):
        assert stream.sender._RTCRtpSender__packet_count == 10
        assert stream.sender._RTCRtpSender__octet_count == sum(map(len, payloads[i]))
        assert stream.dtls._RTCDtlsTransport__tx_packets == 10
        assert stream.dtls._RTCDtlsTransport__tx_bytes == sum(map(len, sent[i]))
        assert not stream.failures and not stream.relayed
    # The first stream's numbers from 65530: seq 1006 went out as 0, its clock pair.
    assert ours[0].sender._RTCRtpSender__rtp_timestamp == (4294967000 + 1006 * 960) & 0xFFFFFFFF
    ntp = ours[0].sender._RTCRtpSender__ntp_timestamp
    assert abs(ntp - aiortc.clock.current_ntp_time()) < 50 * (1 << 32) // 1000
    # The second's from 100: 104 (seq 1004) and then 112 (seq 1012) not sent: 104's pair.
    assert ours[1].sender._RTCRtpSender__rtp_timestamp == 5 + 1004 * 960


def full_socket() -> tuple[socket.socket, socket.socket, socket.socket]:
    """A non-blocking TCP connection on loopback whose peer never reads, written until its
    send buffer is full: its next send fails with EAGAIN (TCP ignores sendto's address)."""
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    peer, _ = server.accept()
    client.setblocking(False)
    try:
        while True:
            client.send(bytes(65536))
    except BlockingIOError:
        pass
    return client, peer, server


def test_a_full_send_buffer_drops_and_another_error_goes_to_the_protocol(inbox: Any) -> None:
    """EAGAIN drops the datagram and counts it (`forward` returns the count, rtc.passthrough
    adds it to `Counters.send_dropped`); another socket error (here EINVAL) goes to the
    protocol's `error_received`, as asyncio's transport sends it; neither fails the stream,
    and the listener after them in the same call still gets the packet."""
    key = bytes(30)
    client, peer, server = full_socket()
    refusing = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    full_pair, refusing_pair = Pair(client, ("127.0.0.1", 9)), Pair(refusing, ("127.0.0.1", 0))
    with client, peer, server, refusing:  # UDP to port 0: EINVAL
        full = Stream(key, 1, (0, 0), full_pair)
        refused = Stream(key, 2, (0, 0), refusing_pair)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            fine = Stream(key, 3, (0, 0), Pair(udp, inbox.getsockname()))
            streams = [full, refused, fine]
            dropped = [_forward.forward(streams, b"x", s, s * 960, 0, None, 7, 0.0) for s in (1, 2)]
            assert dropped == [1, 1]
            assert len(refusing_pair.errors) == 2
            assert all(isinstance(e, OSError) and e.errno for e in refusing_pair.errors)
            assert not full_pair.errors
            assert [len(inbox.recv(1500)) > 0 for _ in range(2)] == [True, True]
    assert not any(s.failures for s in streams)
    assert full.sender._RTCRtpSender__packet_count == 2  # counted as aiortc counts: sent on


def test_a_packet_too_long_for_srtp_fails_that_listener_only(inbox: Any, outbox: Any) -> None:
    """A packet longer than pylibsrtp takes (1500 bytes less SRTP's trailer) is refused as
    pylibsrtp refuses it (ValueError) and handed to that stream's `fail`, nothing sent, kept
    or counted; another listener, whose packet (a RED packet's primary) is shorter, still
    gets it in the same call."""
    address = inbox.getsockname()
    with_red = Stream(bytes(30), 1, (0, 0), Pair(outbox, address))
    without = Stream(bytes(30), 2, (0, 0), Pair(outbox, address), red=None)
    limit = _forward.MAX_PLAIN - 8 - len(with_red.rest)
    assert _forward.MAX_PLAIN == 1500 - pylibsrtp.SRTP_MAX_TRAILER_LEN
    for seq, size in ((1, limit), (2, limit + 1)):
        variants = {(111, 63): (63, bytes(size)), (111, None): (111, b"primary")}
        assert _forward.forward([with_red, without], b"", seq, 0, 0, variants, 7, 0.0) == 0
    assert [len(inbox.recv(1500)) > 0 for _ in range(3)] == [True] * 3
    assert [type(e) for e in with_red.failures] == [ValueError] and not without.failures
    assert with_red.history[1] is None and with_red.sender._RTCRtpSender__packet_count == 1
    assert without.sender._RTCRtpSender__packet_count == 2
    with pytest.raises(ValueError):
        _srtp_session(bytes(30)).protect(bytes(_forward.MAX_PLAIN + 1))


def test_a_relayed_pair_goes_through_python_and_nothing_goes_without_a_connection() -> None:
    """A pair without a UDP socket (a TURN relay) gets the protected packet through the
    stream's `relay`; while the sender is disabled, DTLS is not connected or no ICE pair is
    nominated, nothing is sent; a pair nominated later is taken (`retarget`)."""
    key = random.Random(5).randbytes(30)
    relayed = Stream(key, 9, (0, 0), Pair(None, ("192.0.2.1", 3478)))
    theirs = _srtp_session(key)
    assert _forward.forward([relayed], b"a", 5, 0, 0, None, 7, 0.0) == 0
    assert relayed.relayed == [theirs.protect(plain(relayed, 111, 0, 0, 0, b"a"))]
    relayed.sender._enabled = False
    _forward.forward([relayed], b"b", 6, 960, 0, None, 7, 0.0)
    relayed.sender._enabled = True
    relayed.dtls._state = DtlsState.CLOSED
    _forward.forward([relayed], b"c", 7, 1920, 0, None, 7, 0.0)
    relayed.dtls._state = DtlsState.CONNECTED
    relayed.nominated.clear()
    _forward.forward([relayed], b"d", 8, 2880, 0, None, 7, 0.0)
    assert len(relayed.relayed) == 1 and relayed.sender._RTCRtpSender__packet_count == 1
    relayed.nominated[1] = Pair(None, ("192.0.2.2", 3478))
    _forward.forward([relayed], b"e", 9, 3840, 0, None, 7, 0.0)
    assert relayed.relayed[1] == theirs.protect(plain(relayed, 111, 0, 4, 3840, b"e"))
    assert not relayed.failures


def test_the_compiled_path_writes_on_the_socket_of_a_uvloop_transport(inbox: Any) -> None:
    """The SFU runs on uvloop (rtc/ice.py): the socket its transport gives
    (`get_extra_info("socket")`, as `_Sending.retarget` asks it) is one the compiled path
    writes directly — `target` says so — and the listener gets pylibsrtp's datagram."""
    key = random.Random(5).randbytes(30)

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_datagram_endpoint(
            asyncio.DatagramProtocol, local_addr=("127.0.0.1", 0)
        )
        try:
            pair = Pair(transport.get_extra_info("socket"), inbox.getsockname())
            stream = Stream(key, 33, (7, 9), None, red=None)
            assert stream.target(pair, pair.protocol, pair.sock, *pair.remote_addr)
            stream.nominated[1] = pair
            assert _forward.forward([stream], b"\xfcuv", 500, 960, 0, None, object(), 0.0) == 0
            packet = plain(stream, 111, 0, 7, 9 + 960, b"\xfcuv")
            assert inbox.recv(1500) == _srtp_session(key).protect(packet)
            assert not stream.relayed and not stream.failures
        finally:
            transport.close()

    uvloop.run(scenario())
