"""A lossy UDP relay on loopback: a two-sided NAT between one browser and the SFU.

The browser is told (in the SFU's answer) that the SFU is at `browser_side`, the SFU is
told (in the browser's offer) that the browser is at `sfu_side`; every datagram of the
connection passes here, and a given share of the browser's RTP packets (its uplink
audio) is dropped — or, with `downlink=True`, of the SFU's RTP packets to the browser —
with a seeded random generator so that runs are alike: each packet alike (independent), or
in bursts (`burst`: the mean burst length in packets, a Gilbert–Elliott chain whose bad
state drops everything, with the same average loss) as mobile networks lose them.
"""

from __future__ import annotations

import asyncio
import random
import re
import threading
from typing import Any

CANDIDATE = re.compile(r"^a=candidate:.*$\r?\n?", re.MULTILINE)
#: First byte of RTP/RTCP (version 2); an RTCP packet type is 200..206 (RFC 5761).
RTCP_TYPES = range(200, 207)


def is_rtp(data: bytes) -> bool:
    """An RTP packet (not STUN, DTLS or RTCP): version 2, and not an RTCP packet type."""
    return len(data) > 1 and 128 <= data[0] <= 191 and data[1] not in RTCP_TYPES


class _Side(asyncio.DatagramProtocol):
    def __init__(self, relay: LossyRelay, facing_browser: bool) -> None:
        self.relay, self.facing_browser = relay, facing_browser
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        self.relay.received(data, addr, self.facing_browser)


class LossyRelay:
    """Relays one browser ↔ SFU connection, dropping `loss` of the browser's RTP (or of the
    RTP it receives, `downlink`)."""

    def __init__(
        self, loss: float, seed: int = 14, *, downlink: bool = False, burst: float = 0.0
    ) -> None:
        self.loss = loss
        self.downlink = downlink
        self.burst = burst
        self._in_burst = False
        self._random = random.Random(seed)
        self.rtp_relayed = 0
        self.rtp_dropped = 0
        self.browser: tuple[str, int] | None = None
        self.sfu: tuple[str, int] | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._to_browser = self._open(True)
        self._to_sfu = self._open(False)

    def _open(self, facing_browser: bool) -> _Side:
        async def bind() -> _Side:
            _, side = await self._loop.create_datagram_endpoint(
                lambda: _Side(self, facing_browser), local_addr=("127.0.0.1", 0)
            )
            return side

        return asyncio.run_coroutine_threadsafe(bind(), self._loop).result(5)

    @staticmethod
    def _port(side: _Side) -> int:
        assert side.transport is not None
        return int(side.transport.get_extra_info("sockname")[1])

    def offer(self, sdp: str) -> str:
        """The browser's offer with one candidate: the relay's side facing the SFU."""
        port = self._port(self._to_sfu)
        line = f"a=candidate:1 1 udp 2122260223 127.0.0.1 {port} typ host\r\n"
        return _one_candidate(sdp, line)

    def answer(self, sdp: str) -> str:
        """The SFU's answer pointing the browser at the relay (its SFU port noted)."""
        found = re.search(r"^a=candidate:\S+ 1 udp \d+ 127\.0\.0\.1 (\d+) typ host", sdp, re.M)
        assert found, "the SFU offers a loopback host candidate"
        self.sfu = ("127.0.0.1", int(found.group(1)))
        port = self._port(self._to_browser)
        line = f"a=candidate:1 1 udp 2122260223 127.0.0.1 {port} typ host\r\n"
        return _one_candidate(sdp, line)

    def received(self, data: bytes, addr: tuple[str, int], from_browser: bool) -> None:
        """Forward a datagram to the other end, dropping a share of one direction's RTP."""
        if from_browser:
            self.browser = addr
            if self.sfu is None or self._to_sfu.transport is None:
                return
            if not self.downlink and self._drops(data):
                return
            self._to_sfu.transport.sendto(data, self.sfu)
        elif self.browser is not None and self._to_browser.transport is not None:
            if self.downlink and self._drops(data):
                return
            self._to_browser.transport.sendto(data, self.browser)

    def _drops(self, data: bytes) -> bool:
        """Is this datagram one of the RTP packets lost (counted either way)?"""
        if not is_rtp(data):
            return False
        if self._lost():
            self.rtp_dropped += 1
            return True
        self.rtp_relayed += 1
        return False

    def _lost(self) -> bool:
        """One packet's fate: independent, or the bursts' two-state chain (good → bad with
        p = loss / (burst·(1 − loss)), bad → good with 1 / burst: `loss` of the packets on
        average, in runs of `burst` on average)."""
        if self.burst <= 1 or not 0 < self.loss < 1:
            return self._random.random() < self.loss
        if self._in_burst:
            self._in_burst = self._random.random() >= 1 / self.burst
        else:
            self._in_burst = self._random.random() < self.loss / (self.burst * (1 - self.loss))
        return self._in_burst

    @property
    def dropped_share(self) -> float:
        """The share of the lossy direction's RTP packets dropped so far."""
        total = self.rtp_relayed + self.rtp_dropped
        return self.rtp_dropped / total if total else 0.0

    def close(self) -> None:
        """Close both sockets and stop the relay's thread."""

        async def close() -> None:
            for side in (self._to_browser, self._to_sfu):
                if side.transport is not None:
                    side.transport.close()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


def _one_candidate(sdp: str, line: str) -> str:
    """`sdp` with its candidates replaced by `line` (after the first m-line's ICE lines)."""
    stripped = CANDIDATE.sub("", sdp)
    at = stripped.index("a=ice-ufrag")
    end = stripped.index("\n", at) + 1
    return stripped[:end] + line + stripped[end:]
