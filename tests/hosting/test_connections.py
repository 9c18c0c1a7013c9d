"""What a connection may cost a real `svara serve` before it is a request (cli/guard.py,
docs/hosting.md «On the open internet»): sockets that send nothing, half a request head,
half a TLS handshake, or a finished handshake and then nothing are closed after
HEADER_TIMEOUT; one address holds at most CONNECTIONS_PER_ADDRESS; a flood of them leaves
another player's page and round trips as quick as before (a ratio to a baseline of the same
run); a refused TLS handshake is one quiet line, never a traceback.

The flooding addresses are loopback ones (127.0.0.2, …): Linux routes all of 127/8 to lo.
"""

from __future__ import annotations

import errno
import re
import selectors
import socket
import ssl
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from app.clients import group
from app.tls import CERT_FILE
from cli.guard import Connections
from tests.server.conftest import WAIT, Browser, Client, Server, TlsClient, start_server, stopped

HALF_HEAD = b"GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"
HALF_HELLO = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"  # a ClientHello's first bytes


def address(server: Server) -> tuple[str, int]:
    host, port = server.url.split("//", 1)[1].rsplit(":", 1)
    return host, int(port)


def flood(server: Server, source: str, count: int, first: bytes = b"") -> list[socket.socket]:
    """`count` connections from `source` that send `first` (or nothing) and then wait.
    Connected without blocking: a server that no longer accepts leaves them in its backlog
    (and the test goes on to measure that)."""
    sockets = []
    for _ in range(count):
        conn = socket.socket()
        conn.bind((source, 0))
        conn.setblocking(False)
        err = conn.connect_ex(address(server))
        assert err in (0, errno.EINPROGRESS), errno.errorcode[err]
        sockets.append(conn)
    if first:
        with selectors.DefaultSelector() as ready:
            for conn in sockets:
                ready.register(conn, selectors.EVENT_WRITE)
            waiting = len(sockets)
            while waiting:
                events = ready.select(timeout=WAIT)
                assert events, "connections never established"
                for key, _ in events:
                    key.fileobj.send(first)  # type: ignore[union-attr]
                    ready.unregister(key.fileobj)
                    waiting -= 1
    return sockets


def closed_by_server(conn: socket.socket | ssl.SSLSocket, within: float = WAIT) -> bool:
    """The server ends `conn` (end of file or a reset) within `within` seconds."""
    conn.setblocking(True)
    conn.settimeout(within)
    try:
        return conn.recv(1) == b""
    except ConnectionResetError:
        return True
    except ssl.SSLError:  # an unfinished TLS record cut short
        return True
    except TimeoutError:
        return False


def close_all(sockets: list[Any]) -> None:
    for conn in sockets:
        conn.close()


def median_seconds(action: Callable[[], Any], times: int = 11) -> float:
    taken = []
    for _ in range(times):
        start = time.perf_counter()
        action()
        taken.append(time.perf_counter() - start)
    return statistics.median(taken)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def run(*options: str, **env: str) -> Server:
        server = start_server(tmp_path / f"i{len(started)}", "eventlet", *options, **env)
        started.append(server)
        return server

    try:
        yield run
    finally:
        for server in started:
            server.stop()


def test_a_flood_of_idle_sockets_and_half_heads_leaves_players_served(serve: Any) -> None:
    """Two addresses open 400 connections (idle, or half a request head) against a server
    of 300: each address gets CONNECTIONS_PER_ADDRESS (64) of them, the rest are closed at
    once (test_one_address_holds_at_most_its_connections). Meanwhile a visitor's `GET
    /login` on a new connection and a player's Socket.IO round trip answer about as fast as
    before the flood."""
    server = serve(
        SVARA_MAX_CONNECTIONS="300", SVARA_CONNECTIONS_PER_ADDRESS="64", SVARA_VOICE="false"
    )
    browser = Browser(server.url)
    browser.register("Иван")
    client = browser.socket()

    def page() -> None:
        answer = requests.get(server.url + "/login", timeout=WAIT)
        assert answer.status_code == 200

    def round_trip() -> None:
        assert client.call("lobby:leave") == {"ok": True}

    page(), round_trip()  # warm
    before = median_seconds(page), median_seconds(round_trip)
    crowd: list[socket.socket] = []
    try:
        for source in ("127.0.0.2", "127.0.0.3"):
            crowd += flood(server, source, 100)
            crowd += flood(server, source, 100, HALF_HEAD)
        during = median_seconds(page), median_seconds(round_trip)
    finally:
        close_all(crowd)
    ratios = [d / b for d, b in zip(during, before, strict=True)]
    print(
        f"page {before[0] * 1000:.1f} → {during[0] * 1000:.1f} ms, "
        f"round trip {before[1] * 1000:.1f} → {during[1] * 1000:.1f} ms"
    )
    assert all(r < 4 for r in ratios), (before, during)
    client.close()


def test_connections_without_a_head_in_time_are_closed(serve: Any) -> None:
    """Idle sockets and half heads are closed after HEADER_TIMEOUT (2 s here), from addresses
    each within its bound; a player's WebSocket and long-polling connections made before
    outlive them, answering round trips after they are gone."""
    server = serve(SVARA_HEADER_TIMEOUT="2", SVARA_VOICE="false")
    browser = Browser(server.url)
    browser.register("Мария")
    websocket = browser.socket()
    polling = Client()
    polling.sio.connect(
        server.url,
        headers={"Cookie": browser.cookie_header()},
        transports=["polling"],
        wait_timeout=WAIT,
    )
    crowd: list[socket.socket] = []
    try:
        for n in range(4):
            crowd += flood(server, f"127.0.0.{n + 2}", 10)
            crowd += flood(server, f"127.0.0.{n + 2}", 10, HALF_HEAD)
        assert all(closed_by_server(conn) for conn in crowd)
    finally:
        close_all(crowd)
    for client in (websocket, polling):
        assert client.call("lobby:leave") == {"ok": True}
        assert not client.disconnected.is_set()
    websocket.close()
    polling.close()


def test_one_address_holds_at_most_its_connections(serve: Any) -> None:
    """With CONNECTIONS_PER_ADDRESS=5 (and a long HEADER_TIMEOUT, so only the bound can close
    anything): the sixth connection of 127.0.0.2 is closed at once; 127.0.0.3 is served; a
    connection of 127.0.0.2 closed leaves room for one more."""
    server = serve(
        SVARA_CONNECTIONS_PER_ADDRESS="5", SVARA_HEADER_TIMEOUT="600", SVARA_VOICE="false"
    )
    held = flood(server, "127.0.0.2", 5, HALF_HEAD)
    try:
        sixth = flood(server, "127.0.0.2", 1)[0]
        assert closed_by_server(sixth)
        other = socket.create_connection(
            address(server), timeout=WAIT, source_address=("127.0.0.3", 0)
        )
        with other:
            other.sendall(b"GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert other.recv(12) == b"HTTP/1.1 200"
        held.pop().close()
        again = socket.create_connection(
            address(server), timeout=WAIT, source_address=("127.0.0.2", 0)
        )
        with again:
            again.sendall(b"GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert again.recv(12) == b"HTTP/1.1 200"
    finally:
        close_all(held)


def test_ipv6_addresses_count_by_their_64() -> None:
    assert (
        group("2001:db8:1:2::1")
        == group("2001:db8:1:2:ffff:ffff:ffff:ffff")
        == ("2001:db8:1:2::/64")
    )
    assert group("2001:db8:1:3::1") != group("2001:db8:1:2::1")
    assert group("::ffff:203.0.113.7") == group("203.0.113.7") == "203.0.113.7"
    assert group("fe80::1%eth0") == "fe80::/64"
    connections = Connections(2, ("127.0.0.1", "::1"))
    assert connections.admit("2001:db8::1") and connections.admit("2001:db8::2")
    assert connections.admit("2001:db8::3") is None  # the same /64
    assert connections.admit("2001:db8:0:1::1")  # the next /64
    assert all(connections.admit("127.0.0.1") == "" for _ in range(10))  # the proxy
    connections.release(group("2001:db8::1"))
    assert connections.admit("2001:db8::ffff")


def tls_connect(server: Server, context: ssl.SSLContext, source: str) -> ssl.SSLSocket:
    raw = socket.create_connection(address(server), timeout=WAIT, source_address=(source, 0))
    return context.wrap_socket(raw, server_hostname="127.0.0.1")


def test_under_tls_handshakes_and_heads_have_the_same_deadline(serve: Any) -> None:
    """`--tls`: a connection that sends nothing, half a ClientHello, or finishes the
    handshake and then nothing or half a head, is closed after HEADER_TIMEOUT; a player's
    wss:// connection made before outlives them."""
    server = serve("--tls", SVARA_HEADER_TIMEOUT="2", SVARA_VOICE="false")
    cert = server.instance / CERT_FILE
    trusted = ssl.create_default_context(cafile=str(cert))
    browser = Browser(server.url)
    browser.http.verify = str(cert)
    browser.http.trust_env = False
    browser.http.headers["Referer"] = server.url + "/"  # CSRF over HTTPS checks it
    browser.register("Ёж")
    player = TlsClient(cert)
    player.connect(server.url, browser.cookie_header())
    crowd: list[Any] = []
    try:
        crowd += flood(server, "127.0.0.2", 10)
        crowd += flood(server, "127.0.0.3", 10, HALF_HELLO)
        for _ in range(10):
            quiet = tls_connect(server, trusted, "127.0.0.4")
            crowd.append(quiet)
            half = tls_connect(server, trusted, "127.0.0.5")
            half.sendall(HALF_HEAD)
            crowd.append(half)
        assert all(closed_by_server(conn) for conn in crowd)
    finally:
        close_all(crowd)
    assert player.call("lobby:leave") == {"ok": True}
    assert not player.disconnected.is_set()
    player.close()


def test_a_refused_tls_handshake_is_quiet(tmp_path: Path) -> None:
    """`--lan`: browsers that do not trust the certificate yet (while the players click
    through the warning) refuse the handshake: no traceback in the server's output, at most
    a line each; the server goes on serving."""
    server = start_server(tmp_path, "eventlet", "--lan", SVARA_VOICE="false")
    with stopped(server):
        server.wait_for(re.compile("not private"))
        printed = len(server.output)
        untrusting = ssl.create_default_context()
        for _ in range(5):
            with pytest.raises(ssl.SSLCertVerificationError):
                tls_connect(server, untrusting, "127.0.0.2")
        page = requests.get(server.url + "/login", verify=str(tmp_path / CERT_FILE), timeout=WAIT)
        assert page.status_code == 200
    after = "".join(server.output[printed:])
    assert "Traceback" not in after and "SSLError" not in after, after
    assert len(server.output) - printed <= 5 + 1, after  # + «Svara stopped.»
