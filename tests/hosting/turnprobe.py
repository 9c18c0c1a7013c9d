"""A TURN client run inside the relay test's network namespace (tests/hosting/
test_turn_relay.py): a UDP echo at each peer address, then one relay allocation that sends
to each peer in turn; prints, as JSON, what each peer did ("echo", or why it was refused),
or why the allocation itself was refused.

Usage: python -m tests.hosting.turnprobe SERVER_IP PORT USERNAME PASSWORD PEER_IP...
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from aioice import stun
from aioice.turn import create_turn_endpoint

WAIT = 5.0  # seconds for one peer's echo or refusal; a denied peer is refused at once


class Echo(asyncio.DatagramProtocol):
    """A peer: sends every datagram back."""

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        self.transport.sendto(data, addr)


class Relayed(asyncio.DatagramProtocol):
    """The client's side of the allocation: the next echo, or the next refusal."""

    def __init__(self) -> None:
        self.heard: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        self.heard.put_nowait(("echo", addr[0]))

    def error_received(self, exc: Exception) -> None:
        self.heard.put_nowait(("refused", str(exc)))


async def probe(server: str, port: int, username: str, password: str, peers: list[str]) -> Any:
    loop = asyncio.get_running_loop()
    echoes = [await loop.create_datagram_endpoint(Echo, local_addr=(ip, 0)) for ip in peers]
    try:
        transport, relayed = await create_turn_endpoint(Relayed, (server, port), username, password)
    except (stun.TransactionFailed, stun.TransactionTimeout, ConnectionError) as exc:
        return {"allocation": f"refused: {exc}"}
    results: dict[str, str] = {}
    try:
        for (echo, _), ip in zip(echoes, peers, strict=True):
            transport.sendto(b"ping", echo.get_extra_info("sockname")[:2])
            try:
                what, detail = await asyncio.wait_for(relayed.heard.get(), WAIT)
            except TimeoutError:
                what, detail = "silent", ""
            results[ip] = what if what == "echo" and detail == ip else f"{what}: {detail}"
    finally:
        transport.close()
        for echo, _ in echoes:
            echo.close()
    return {"allocation": "ok", "peers": results}


if __name__ == "__main__":
    server_ip, server_port, user, secret, *addresses = sys.argv[1:]
    print(json.dumps(asyncio.run(probe(server_ip, int(server_port), user, secret, addresses))))
