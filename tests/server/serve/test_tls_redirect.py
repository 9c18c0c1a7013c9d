"""A player who types `http://` to a server that has TLS is sent to its https address
(cli/redirect.py, docs/hosting.md «The microphone needs HTTPS»): the same path and query
over https, at the server's own host (never one the visitor's Host made up), where the
microphone works; the TLS port serves HTTPS as before. A real `svara serve --tls` (eventlet) on
loopback, and the raw answers to requests it must refuse.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
import requests

from app.tls import CERT_FILE
from cli.redirect import answer

from ..conftest import WAIT, Server, start_server, stopped


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("tls-redirect"), "eventlet", "--tls")
    with stopped(server):
        yield server


def raw(server: Server, request: bytes) -> bytes:
    """What the server answers a plain-TCP client sending `request`, until it closes."""
    host, port = server.url.removeprefix("https://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=WAIT) as conn:
        conn.sendall(request)
        got = b""
        while chunk := conn.recv(4096):
            got += chunk
    return got


def test_a_plain_http_visit_is_sent_to_the_https_address(tls_server: Server) -> None:
    plain = tls_server.url.replace("https://", "http://") + "/table/7?lang=bg"
    sent = requests.get(plain, allow_redirects=False, timeout=WAIT)
    assert sent.status_code == 307
    assert sent.headers["Location"] == tls_server.url + "/table/7?lang=bg"
    # There the server answers over TLS as ever (the table page wants a login first).
    cert = str(tls_server.instance / CERT_FILE)
    page = requests.get(sent.headers["Location"], verify=cert, timeout=WAIT)
    assert page.status_code == 200 and "csrf_token" in page.text
    assert page.url.startswith(tls_server.url + "/login")


def test_a_plain_request_without_a_usable_path_is_refused(tls_server: Server) -> None:
    for request in (
        b"GET http://evil.example/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"nonsense\r\n\r\n",
    ):
        assert raw(tls_server, request).startswith(b"HTTP/1.1 400 Bad Request\r\n"), request
    # The server goes on serving both.
    assert raw(tls_server, b"GET / HTTP/1.1\r\nHost: [::1]:5000\r\n\r\n").startswith(
        b"HTTP/1.1 307 Temporary Redirect\r\nLocation: https://[::1]:5000/\r\n"
    )


def test_the_redirect_names_the_servers_own_host(tls_server: Server) -> None:
    """A Host the certificate is not for (made up by whoever wrote the link), or none, is
    not repeated: the redirect names the address the visitor reached."""
    own = tls_server.url
    for host in (b"evil.example", b"evil.example/x", b"127.0.0.1.evil.example:5000", b""):
        request = b"GET /login?next=/ HTTP/1.1\r\nHost: " + host + b"\r\n\r\n"
        sent = raw(tls_server, request).split(b"\r\n")
        assert sent[:2] == [
            b"HTTP/1.1 307 Temporary Redirect",
            f"Location: {own}/login?next=/".encode(),
        ], host
    named = raw(tls_server, b"GET / HTTP/1.1\r\nHost: LocalHost:8443\r\n\r\n")
    assert named.split(b"\r\n")[1] == b"Location: https://LocalHost:8443/"


def test_the_redirect_names_only_what_the_request_gave() -> None:
    names = frozenset({"192.168.1.10", "svara.example.org", "*.home.example"})
    own = "192.168.1.10:5000"
    # Not a name it would serve (raw UTF-8), nor a target for the Location header.
    head = "GET /table/1 HTTP/1.1\r\nHOST: Свара.example\r\n\r\n".encode()
    assert (
        answer(head, names, own).split(b"\r\n")[1] == b"Location: https://192.168.1.10:5000/table/1"
    )
    assert answer(b"GET /a\x01b HTTP/1.1\r\nHost: x\r\n\r\n", names, own).startswith(
        b"HTTP/1.1 400"
    )
    ok = answer(
        b"HEAD /hands?page=2 HTTP/1.0\r\nhost: svara.example.org:443\r\nX: y\r\n\r\n", names, own
    )
    assert ok.split(b"\r\n")[1] == b"Location: https://svara.example.org:443/hands?page=2"
    wild = answer(b"GET / HTTP/1.1\r\nHost: pi.home.example\r\n\r\n", names, own)
    assert wild.split(b"\r\n")[1] == b"Location: https://pi.home.example/"
    deeper = answer(b"GET / HTTP/1.1\r\nHost: a.pi.home.example\r\n\r\n", names, own)
    assert deeper.split(b"\r\n")[1] == b"Location: https://192.168.1.10:5000/"
