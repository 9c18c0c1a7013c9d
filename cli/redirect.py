"""A plain-http visit to the HTTPS port of `svara serve --tls` is sent to its https address.

Browsers give the microphone only to a secure context (docs/hosting.md «The microphone
needs HTTPS»). A player who types `http://192.168.1.10:5000` — an IP address, where HSTS
does not apply — would get a broken connection from a TLS port, and a page on a plain-http
address can only say that HTTPS is needed. So the server that has TLS answers him with its
https address: the first byte of each connection tells TLS (a handshake record, 0x16) from
plain HTTP, and a plain request is answered `307` to the same path over https, then
closed; nothing of the app runs for it. The address is the server's own: the `Host` the
visitor sent when it is a name the certificate is for, else the address he reached (the
connection's local address and port) — never a host the visitor made up, which a link
could otherwise send someone to (docs/hosting.md «On the open internet»). Used by the
eventlet server (the designed one, docs/architecture.md), in the connection's own green thread.
"""

from __future__ import annotations

import _socket
import re
import socket
from typing import Any
from urllib.parse import urlsplit

#: A TLS record that opens a connection is a handshake (RFC 8446 §5.1).
HANDSHAKE = 0x16
#: The longest request head read from a plain-http client, and how long he may take.
MAX_HEAD = 8192
TIMEOUT = 10.0
#: A Host header this server would answer to: a name or IPv4 address, or [IPv6], and a port.
HOST = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$")
#: A request target without controls or spaces (it goes into the Location header).
TARGET = re.compile(r"^/[\x21-\x7e]*$")


def answer(head: bytes, names: frozenset[str], own: str) -> bytes:
    """The answer to a plain-http request head: 307 to its https address, or 400 for a
    request without a usable path. `names`: the certificate's (lower case); `own`: the
    address the connection reached, `host:port`, used when the Host is none of them."""
    lines = head.split(b"\r\n")
    words = lines[0].decode("latin-1").split(" ")
    host = next(
        (
            line.split(b":", 1)[1].strip().decode("latin-1")
            for line in lines[1:]
            if line.lower().startswith(b"host:")
        ),
        "",
    )
    if len(words) != 3 or not TARGET.match(words[1]):
        return b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    if not (HOST.match(host) and _named(host, names)):
        host = own
    location = f"https://{host}{words[1]}"
    return (
        "HTTP/1.1 307 Temporary Redirect\r\n"
        f"Location: {location}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(location) + 1}\r\n"
        "Connection: close\r\n\r\n"
        f"{location}\n"
    ).encode()


def _named(host: str, names: frozenset[str]) -> bool:
    """The name of a Host header is one of `names` (a wildcard covers one label)."""
    try:
        name = urlsplit("//" + host).hostname or ""
    except ValueError:
        return False
    wildcard = "*." + name.split(".", 1)[-1]
    return name in names or ("." in name and wildcard in names)


def own_address(conn: Any) -> str:
    """The address and port a connection reached, as a Host header writes it."""
    host, port = conn.getsockname()[:2]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def protocol(names: frozenset[str]) -> type:
    """eventlet's HTTP protocol, but a connection that does not start with a TLS handshake
    gets `answer` on its raw socket instead (imported late: after eventlet's patching)."""
    from eventlet import wsgi
    from eventlet.hubs import trampoline

    def raw_recv(conn: Any, size: int, flags: int = 0) -> bytes:
        """Bytes from under the (not yet started) TLS layer, waiting green."""
        trampoline(conn, read=True, timeout=TIMEOUT, timeout_exc=socket.timeout)
        return _socket.socket.recv(conn, size, flags)

    class TlsOrRedirect(wsgi.HttpProtocol):
        plain = False

        def setup(self) -> None:
            conn = self.request
            try:
                first = raw_recv(conn, 1, socket.MSG_PEEK)
            except OSError:
                first = b""  # gone or silent: TLS fails as it would have
            if first and first[0] != HANDSHAKE:
                self.plain = True
                head = b""
                try:
                    while b"\r\n\r\n" not in head and len(head) < MAX_HEAD:
                        chunk = raw_recv(conn, MAX_HEAD - len(head))
                        if not chunk:
                            break
                        head += chunk
                    _socket.socket.sendall(conn, answer(head, names, own_address(conn)))
                except OSError:
                    pass  # he hung up: nothing to answer
                return
            super().setup()

        def handle(self) -> None:
            if not self.plain:
                super().handle()

        def finish(self) -> None:
            if not self.plain:
                super().finish()

    return TlsOrRedirect
