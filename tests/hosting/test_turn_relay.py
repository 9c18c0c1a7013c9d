"""deploy/turnserver.conf keeps the relay out of the host's networks (docs/hosting.md «TURN:
the relay is not a way into the house»): Debian's coturn with that file, in a network
namespace of the test's own, whose loopback interface carries one address of each range a
home network uses (RFC 1918 10/8, 172.16/12 and 192.168/16, CGNAT 100.64/10, link-local,
documentation, loopback), each with a UDP echo. A relay allocation made with a login as
`svara serve` hands out reaches only the one address the host allows (the SFU's own,
`allowed-peer-ip` as the docs say); every other peer is refused by coturn, and a login past
its expiry gets no allocation at all.

Nothing leaves the namespace: its only interface is its own loopback. Its
ports are its own, so coturn listens on the standard one there.
"""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.voice.settings import turn_credentials
from tests.browser.test_front_door import DEPLOY, running
from tests.server.conftest import WAIT

SECRET = "s3cret-of-the-relay-test"
TURN_IP = "10.77.0.254"  # coturn's own address in the namespace
SFU = "10.77.0.1"  # the host's SFU: the one private peer he allows
DENIED = [
    "10.77.0.2",  # another machine of the home network
    "192.168.77.1",
    "172.16.77.1",
    "100.64.77.1",  # CGNAT
    "169.254.77.1",  # link-local
    "198.51.100.7",  # documentation (TEST-NET-2)
    "127.0.0.1",  # the TURN machine's own services
]
ROOT = Path(__file__).resolve().parents[2]


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=WAIT)


@pytest.fixture
def namespace() -> Iterator[str]:
    """A network namespace whose only interface, its loopback, holds every address."""
    name = f"svara-turn-{os.getpid()}"
    ip("netns", "add", name)
    try:
        for address in (TURN_IP, SFU, *DENIED[:-1]):
            ip("-n", name, "addr", "add", f"{address}/32", "dev", "lo")
        ip("-n", name, "link", "set", "lo", "up")
        yield name
    finally:
        ip("netns", "del", name)


@pytest.fixture
def coturn(namespace: str, tmp_path: Path) -> Iterator[str]:
    command = [
        *("ip", "netns", "exec", namespace, "turnserver", "-c", str(DEPLOY / "turnserver.conf")),
        f"--listening-ip={TURN_IP}",
        f"--relay-ip={TURN_IP}",
        f"--static-auth-secret={SECRET}",
        f"--allowed-peer-ip={SFU}",
        f"--userdb={tmp_path / 'turndb'}",
        f"--pidfile={tmp_path / 'turnserver.pid'}",
        "--log-file=stdout",
    ]
    with running(command, "Total General servers"):
        yield namespace


def probe(namespace: str, username: str, password: str, peers: list[str]) -> dict[str, object]:
    """tests/hosting/turnprobe.py inside the namespace: what each peer answered."""
    done = subprocess.run(
        [
            *("ip", "netns", "exec", namespace, sys.executable, "-m", "tests.hosting.turnprobe"),
            *(TURN_IP, "3478", username, password, *peers),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=3 * WAIT,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_relay_reaches_the_sfu_and_nothing_of_the_home_network(coturn: str) -> None:
    username, password = turn_credentials(SECRET, "Иван", 600, time.time())
    result = probe(coturn, username, password, [SFU, *DENIED])
    assert result["allocation"] == "ok", result
    peers = result["peers"]
    assert isinstance(peers, dict)
    assert peers[SFU] == "echo"
    for address in DENIED:
        assert peers[address].startswith("refused") and "403" in peers[address], (address, peers)


def test_an_expired_login_gets_no_allocation(coturn: str) -> None:
    username, password = turn_credentials(SECRET, "Мария", 600, time.time() - 601)
    result = probe(coturn, username, password, [SFU])
    assert str(result["allocation"]).startswith("refused"), result
    assert "401" in str(result["allocation"])


def denied_ranges() -> list[tuple[ipaddress._BaseAddress, ipaddress._BaseAddress]]:
    ranges = []
    for line in (DEPLOY / "turnserver.conf").read_text().splitlines():
        if line.startswith("denied-peer-ip="):
            low, _, high = line.removeprefix("denied-peer-ip=").partition("-")
            ranges.append((ipaddress.ip_address(low), ipaddress.ip_address(high or low)))
    return ranges


def denied(
    address: str, ranges: list[tuple[ipaddress._BaseAddress, ipaddress._BaseAddress]]
) -> bool:
    a = ipaddress.ip_address(address)
    return any(low.version == a.version and int(low) <= int(a) <= int(high) for low, high in ranges)


@pytest.mark.parametrize(
    "address",
    [
        *("0.1.2.3", "10.0.0.1", "100.64.0.1", "100.127.255.254", "127.0.0.1", "169.254.1.1"),
        *("172.16.0.1", "172.31.255.254", "192.0.0.8", "192.0.2.1", "192.88.99.1"),
        *("192.168.1.1", "198.18.0.1", "198.51.100.1", "203.0.113.1", "224.0.0.1"),
        *("239.255.255.250", "240.0.0.1", "255.255.255.255"),
        *("::", "::1", "::ffff:192.168.1.1", "64:ff9b::a00:1", "64:ff9b:1::1", "100::1"),
        *("2001::1", "2001:db8::1", "2002:c0a8:101::1", "3fff::1", "fc00::1", "fd12:3456::1"),
        *("fe80::1", "fec0::1", "ff02::1"),
    ],
)
def test_every_range_that_is_not_the_internet_is_denied(address: str) -> None:
    assert denied(address, denied_ranges())


@pytest.mark.parametrize(
    "address", ["1.1.1.1", "100.128.0.1", "172.32.0.1", "192.169.0.1", "2a00:1450::1", "2606::1"]
)
def test_public_addresses_stay_reachable(address: str) -> None:
    """Only parsed here: the relay must still reach browsers and SFUs on the internet."""
    assert ipaddress.ip_address(address).is_global
    assert not denied(address, denied_ranges())
