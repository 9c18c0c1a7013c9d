"""What a connection may cost `svara serve` (eventlet) before it is a request.

eventlet serves each connection in a green thread of a pool of `MAX_CONNECTIONS`; a
connection that sends nothing, half a request head, or a TLS handshake it never finishes
would hold its thread for ever, and a few thousand of them stop every answer. So
(docs/hosting.md «On the open internet»):

- Each connection has `HEADER_TIMEOUT` seconds for its TLS handshake (if any) and the whole
  head of each request — a deadline, not a timeout per read, so a head sent a byte at a time
  is closed too; between two requests of a kept-alive connection the same. Once the head is
  in, the request is the app's: a Socket.IO WebSocket or long poll lasts as long as it lives.
- Each client address (`app.clients.group`: IPv6 by /64) holds at most
  `CONNECTIONS_PER_ADDRESS` connections; one more is closed at once, before it is read. The
  trusted proxy's own address (`PROXY_ADDRESSES`, with `TRUST_PROXY`) is not bounded: every
  player comes through it, and the proxy bounds its clients itself.
- A TLS handshake the client refuses (a browser that does not trust the certificate yet,
  a scanner) ends the connection with one line in the log at INFO, never a traceback.
"""

from __future__ import annotations

import logging
import ssl
from collections import Counter
from typing import Any

from app.clients import group, matches

log = logging.getLogger("svara.connections")


class Connections:
    """The open connections by client group (one green thread at a time touches it)."""

    def __init__(self, per_address: int, unbounded: tuple[str, ...] = ()):
        self.per_address, self.unbounded = per_address, unbounded
        self.open: Counter[str] = Counter()

    def admit(self, address: str) -> str | None:
        """Count one more connection of `address`: its group, or None when it is over."""
        if self.unbounded and matches(address, self.unbounded):
            return ""
        key = group(address)
        if self.open[key] >= self.per_address:
            return None
        self.open[key] += 1
        return key

    def release(self, key: str) -> None:
        if key:
            self.open[key] -= 1
            if not self.open[key]:
                del self.open[key]


def protocol(base: type, connections: Connections, header_timeout: float) -> type:
    """`base` (eventlet's HttpProtocol or the TLS redirect's) with the bounds above
    (imported late: after eventlet's patching)."""
    import eventlet
    from eventlet import greenio

    class Guarded(base):
        _deadline: Any = None

        def __init__(self, conn_state: list[Any], server: Any) -> None:
            address = str(conn_state[0][0])
            key = connections.admit(address)
            if key is None:
                greenio.shutdown_safe(conn_state[1])
                conn_state[1].close()
                return
            self._arm()  # the handshake and the first head
            try:
                super().__init__(conn_state, server)
            except eventlet.Timeout as late:
                if late is not self._deadline:
                    raise
                log.debug("%s sent no request head in %s s", address, header_timeout)
            except ssl.SSLError as refused:
                log.info("TLS handshake from %s refused: %s", address, refused.reason)
            except ConnectionError:
                pass  # he hung up
            except ValueError as closed:  # a stop closed this idle TLS connection under its read
                if "closed or unwrapped" not in str(closed):
                    raise
            finally:
                self._disarm()
                connections.release(key)

        def _arm(self) -> None:
            # The Timeout itself is raised: no `except OSError` on the way swallows it.
            self._deadline = eventlet.Timeout(header_timeout)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def handle_one_request(self) -> None:
            if self._deadline is None:  # the next head of a kept-alive connection
                self._arm()
            super().handle_one_request()

        def handle_one_response(self) -> None:
            self._disarm()  # the head is in: the rest is the request's own
            super().handle_one_response()

    return Guarded
