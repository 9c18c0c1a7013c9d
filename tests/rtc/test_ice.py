"""ICE settings (rtc.ice): offered addresses, the UDP port range, config parsing."""

from __future__ import annotations

import asyncio
import errno
import socket

import pytest
import uvloop
from aioice import Connection

from rtc.ice import (
    IceConfig,
    IceConfigError,
    IceServer,
    PortRangeEventLoop,
    loop_factory,
    offer_addresses,
    parse_port_range,
    resolve_addresses,
)


def free_range(size: int) -> range:
    """A range of `size` ports that are free on 127.0.0.1 right now (found by binding)."""
    start = 40000
    while True:
        ports = range(start, start + size)
        probes = []
        try:
            for port in ports:
                probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                probes.append(probe)
                probe.bind(("127.0.0.1", port))
            return ports
        except OSError:
            start += size
        finally:
            for probe in probes:
                probe.close()


class Endpoint(asyncio.DatagramProtocol):
    """A UDP protocol that tells when its socket is really closed."""

    def __init__(self) -> None:
        self.closed = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set_result(None)


def test_port_range_loop_binds_any_port_requests_inside_the_range() -> None:
    ports = free_range(3)
    loop = PortRangeEventLoop(ports)
    try:

        async def scenario() -> None:
            transports, protocols = [], []
            for _ in range(3):
                transport, protocol = await loop.create_datagram_endpoint(
                    Endpoint, local_addr=("127.0.0.1", 0)
                )
                transports.append(transport)
                protocols.append(protocol)
            bound = sorted(t.get_extra_info("sockname")[1] for t in transports)
            assert bound == list(ports)
            with pytest.raises(OSError) as failure:
                await loop.create_datagram_endpoint(
                    asyncio.DatagramProtocol, local_addr=("127.0.0.1", 0)
                )
            assert failure.value.errno == errno.EADDRINUSE
            transports.pop().close()
            await protocols.pop().closed
            again, _ = await loop.create_datagram_endpoint(
                asyncio.DatagramProtocol, local_addr=("127.0.0.1", 0)
            )
            assert again.get_extra_info("sockname")[1] in ports  # a freed port is reused
            transports.append(again)
            outside, _ = await loop.create_datagram_endpoint(
                asyncio.DatagramProtocol, remote_addr=("127.0.0.1", 9)
            )
            assert outside.get_extra_info("sockname")[1] not in ports  # left alone
            for transport in [*transports, outside]:
                transport.close()

        loop.run_until_complete(scenario())
    finally:
        loop.close()


def test_aioice_gathers_on_the_chosen_addresses_and_ports() -> None:
    """The hook into aioice: host candidates on exactly the offered addresses (loopback
    included, which aioice leaves out by itself), on ports of the range."""
    ports = free_range(4)
    loop = loop_factory(IceConfig(ports=ports))
    offer_addresses(["127.0.0.1"])
    try:

        async def scenario() -> None:
            connection = Connection(ice_controlling=True)
            await connection.gather_candidates()
            candidates = connection.local_candidates
            await connection.close()
            assert [c.host for c in candidates] == ["127.0.0.1"]
            assert all(c.port in ports for c in candidates)

        loop.run_until_complete(scenario())
    finally:
        offer_addresses(None)
        loop.close()


def test_default_addresses_are_aioice_own() -> None:
    offer_addresses(None)

    async def scenario() -> list[str]:
        connection = Connection(ice_controlling=True)
        await connection.gather_candidates()
        hosts = [c.host for c in connection.local_candidates]
        await connection.close()
        return hosts

    assert "127.0.0.1" not in asyncio.run(scenario())


def test_parse_port_range() -> None:
    assert parse_port_range("40000-40099") == range(40000, 40100)
    assert parse_port_range("50000") == range(50000, 50001)
    for bad in ("high-low", "40099-40000", "80-90", "60000-70000"):
        with pytest.raises(IceConfigError):
            parse_port_range(bad)


def test_resolve_addresses_takes_ips_and_interface_names() -> None:
    assert resolve_addresses(["127.0.0.1", "lo"])[0] == "127.0.0.1"
    assert "::1" in resolve_addresses(["lo"])
    with pytest.raises(IceConfigError):
        resolve_addresses(["no-such-interface0"])


def test_rtc_configuration_lists_exactly_the_configured_servers() -> None:
    """No servers → an empty list (aiortc would otherwise ask Google's STUN on a LAN)."""
    assert IceConfig().rtc_configuration().iceServers == []
    turn = IceServer("turn:example.org:3478", "u", "p")
    servers = IceConfig(servers=(turn,)).rtc_configuration().iceServers
    assert [(s.urls, s.username, s.credential) for s in servers] == [
        ("turn:example.org:3478", "u", "p")
    ]


def test_the_sfus_loop_is_uvloops_with_or_without_a_port_range() -> None:
    """rtc/ice.py: the SFU's loop reads many datagrams per readiness event (libuv's)."""
    for config in (IceConfig(), IceConfig(ports=free_range(2))):
        loop = loop_factory(config)
        try:
            assert isinstance(loop, uvloop.Loop)
        finally:
            loop.close()
