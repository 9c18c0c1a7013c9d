"""ICE configuration of the SFU: STUN/TURN servers, offered addresses, a UDP port range.

aioice gathers a host candidate on every interface address except loopback, on a random
UDP port, and has no option for either. Home hosts need both under control: which
address(es) to offer (loopback for tests, the LAN address for a home host) and a small
port range that can be forwarded on a router. Addresses: aioice's module-level
`get_host_addresses` is replaced (looked up at each gathering). Ports: the SFU runs on
an event loop whose `create_datagram_endpoint` binds "any port" requests inside the
range — a public asyncio API, so aioice itself is untouched.

That loop is uvloop's: libuv reads up to 32 datagrams of a socket per readiness event and
hands each to the protocol from C, where asyncio's selector loop makes one `recvfrom` and a
loop pass of Python per datagram, and a voice connection's fixed cost is mostly those
(docs/performance.md, «The SFU on uvloop»).
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import aioice.ice
import ifaddr
import uvloop
from aiortc import RTCConfiguration, RTCIceServer


class IceConfigError(ValueError):
    """A malformed ICE setting (bad port range, unknown interface)."""


@dataclass(frozen=True)
class IceServer:
    """One STUN or TURN server as a browser's RTCIceServer has it."""

    urls: str
    username: str | None = None
    credential: str | None = None


@dataclass(frozen=True)
class IceConfig:
    """What the SFU offers: servers, addresses (None = aioice's default) and ports."""

    servers: tuple[IceServer, ...] = ()
    addresses: tuple[str, ...] | None = None
    ports: range | None = None

    def rtc_configuration(self) -> RTCConfiguration:
        """aiortc's configuration; an empty list keeps aiortc from asking Google's STUN."""
        return RTCConfiguration(
            iceServers=[RTCIceServer(s.urls, s.username, s.credential) for s in self.servers]
        )


def parse_port_range(text: str) -> range:
    """'40000-40099' → range(40000, 40100); both ends inclusive, as routers write them."""
    low, sep, high = text.partition("-")
    try:
        first, last = int(low), int(high if sep else low)
    except ValueError:
        raise IceConfigError(f"port range {text!r} is not 'LOW-HIGH'") from None
    if not 1024 <= first <= last <= 65535:
        raise IceConfigError(f"port range {text!r} must lie within 1024-65535, low first")
    return range(first, last + 1)


def resolve_addresses(entries: Iterable[str]) -> tuple[str, ...]:
    """IP addresses for config entries that are addresses or interface names ('eth0')."""
    adapters = {a.name: a for a in ifaddr.get_adapters()}
    resolved: list[str] = []
    for entry in entries:
        try:
            resolved.append(str(ipaddress.ip_address(entry)))
            continue
        except ValueError:
            pass
        adapter = adapters.get(entry)
        if adapter is None:
            raise IceConfigError(f"{entry!r} is neither an IP address nor an interface")
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                resolved.append(ip.ip)
            elif ip.ip[2] == 0:  # IPv6 without scope id: link-local ones cannot be bound
                resolved.append(ip.ip[0])
    return tuple(dict.fromkeys(resolved))


def offer_addresses(addresses: Sequence[str] | None) -> None:
    """Make aioice gather host candidates on exactly `addresses` (None = its default).

    This is process-wide (aioice keeps no per-connection setting); the SFU process and
    the test clients each call it once.
    """
    if addresses is None:
        aioice.ice.get_host_addresses = _default_host_addresses
        return
    chosen = list(addresses)

    def get_host_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
        return [
            a
            for a in chosen
            if (use_ipv4 and ipaddress.ip_address(a).version == 4)
            or (use_ipv6 and ipaddress.ip_address(a).version == 6)
        ]

    aioice.ice.get_host_addresses = get_host_addresses


_default_host_addresses = aioice.ice.get_host_addresses


def drop_after(seconds: float) -> None:
    """Drop a peer that answered no ICE consent check for about `seconds` (RFC 7675).

    aioice checks consent every CONSENT_INTERVAL (5 s) and gives up after CONSENT_FAILURES
    (6) unanswered checks, ~30 s; it has no per-connection setting, so the SFU process sets
    the interval once (VOICE_DROP_AFTER, docs/hosting.md). A dropped browser reconnects.
    """
    if seconds <= 0:
        raise IceConfigError(f"drop-after must be positive, not {seconds}")
    # aioice declares the interval an int, but sleeps on it as any number of seconds.
    aioice.ice.CONSENT_INTERVAL = seconds / aioice.ice.CONSENT_FAILURES  # type: ignore[assignment]


class PortRangeEventLoop(uvloop.Loop):
    """An event loop that binds 'any port' UDP endpoints within a fixed range.

    aioice binds each host candidate with `local_addr=(address, 0)`; here such a request
    takes the next free port of the range instead (EADDRINUSE → try the next one). Other
    UDP endpoints (fixed ports, connected sockets, given sockets) are left alone.
    """

    def __init__(self, ports: range) -> None:
        super().__init__()
        self.ports = ports
        self._cursor = itertools.cycle(range(len(ports)))

    # Not typed (next line): the loop's signature, narrowed to the UDP endpoints aioice opens;
    # the transport is `Any` as uvloop's stub has it (a `BaseProtocol`, where it is a transport).
    async def create_datagram_endpoint(  # type: ignore[override]
        self, protocol_factory: Any, local_addr: Any = None, remote_addr: Any = None, **kwargs: Any
    ) -> tuple[Any, asyncio.DatagramProtocol]:
        if local_addr is None or remote_addr is not None or local_addr[1] != 0:
            return await super().create_datagram_endpoint(
                protocol_factory, local_addr=local_addr, remote_addr=remote_addr, **kwargs
            )
        host = local_addr[0]
        for _ in range(len(self.ports)):
            port = self.ports[next(self._cursor)]
            try:
                return await super().create_datagram_endpoint(
                    protocol_factory, local_addr=(host, port), **kwargs
                )
            except OSError as exc:
                if not _in_use(exc):
                    raise
        raise OSError(
            errno.EADDRINUSE,
            f"no free UDP port on {host} in {self.ports.start}-{self.ports.stop - 1}",
        )


def _in_use(failure: OSError) -> bool:
    """EADDRINUSE as asyncio raises it, or as uvloop does: the cause of its own OSError."""
    cause = failure.__cause__
    return failure.errno == errno.EADDRINUSE or (
        isinstance(cause, OSError) and cause.errno == errno.EADDRINUSE
    )


def loop_factory(config: IceConfig) -> asyncio.AbstractEventLoop:
    """The SFU's event loop (uvloop's, see above): range-bound when a port range is configured."""
    if config.ports is not None:
        return PortRangeEventLoop(config.ports)
    return uvloop.Loop()
