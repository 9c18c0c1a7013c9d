"""The SFU process: JSON lines over a unix socket, driving `Sfu`.

Protocol (docs/voice-protocol.md has the full table). Requests carry an `id` and get
exactly one reply `{"id", "ok": true, …}` or `{"id", "ok": false, "error"}`; events
(`slots`, `peer`, `levels`) come unasked and go to the connection that owns the table
(the one that joined it). Requests of one table are applied one at a time, in order.
When the owning connection goes, its tables are closed; when stdin closes (the web
process that started us died) the whole process exits.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from . import passthrough
from .ice import (
    IceConfig,
    IceServer,
    drop_after,
    loop_factory,
    offer_addresses,
    parse_port_range,
    resolve_addresses,
)
from .room import RoomError
from .sfu import OfferError, Sfu
from .ticks import MAX_TICK, TICK, Ticks

logger = logging.getLogger("rtc")

#: Longest accepted line: an offer with 8 m-lines is ~15 kB of SDP.
MAX_LINE = 1 << 20
#: Events are dropped for a reader this far behind (never grow without bound).
MAX_BACKLOG = 1 << 20


class ProtocolError(ValueError):
    """A request that is not valid JSON or misses/mistypes a field."""


def _field(message: dict[str, Any], name: str, kind: type) -> Any:
    value = message.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ProtocolError(f"{name!r} must be a {kind.__name__}")
    return value


def _flag(message: dict[str, Any], name: str, default: bool) -> bool:
    return _field(message, name, bool) if name in message else default


class Client:
    """One connection from a web process."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    def send(self, message: dict[str, Any]) -> None:
        if self.writer.is_closing():
            return
        if self.writer.transport.get_write_buffer_size() > MAX_BACKLOG and "event" in message:
            return
        self.writer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")


class Server:
    """Routes requests to the SFU and events to each table's owner."""

    def __init__(self, ice: IceConfig) -> None:
        self.sfu = Sfu(ice, self._route_event)
        self.owners: dict[str, Client] = {}
        self.clients: set[Client] = set()
        self.connections: set[asyncio.Task[Any]] = set()
        self._locks: dict[str, asyncio.Lock] = {}
        self._handlers: dict[str, Callable[[Client, dict[str, Any]], Awaitable[dict[str, Any]]]]
        self._handlers = {
            "ping": self._ping,
            "stats": self._stats,
            "join": self._join,
            "offer": self._offer,
            "mic": self._mic,
            "listen": self._listen,
            "leave": self._leave,
            "close": self._close,
        }

    def _route_event(self, event: dict[str, Any]) -> None:
        owner = self.owners.get(event["table"])
        if owner is not None:
            owner.send(event)

    async def handle_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Serve one web process until it disconnects, then close the tables it owned."""
        client = Client(writer)
        self.clients.add(client)
        this = asyncio.current_task()
        if this is not None:
            self.connections.add(this)
        pending: set[asyncio.Task[None]] = set()
        try:
            while line := await reader.readline():
                task = asyncio.create_task(self._answer(client, line))
                pending.add(task)
                task.add_done_callback(pending.discard)
        except (ConnectionError, ValueError) as exc:  # ValueError: line over MAX_LINE
            logger.warning("voice client dropped: %s", exc)
        finally:
            await asyncio.gather(*pending, return_exceptions=True)
            self.clients.discard(client)
            for table in [t for t, owner in self.owners.items() if owner is client]:
                await self._locked(table, self.sfu.close(table))
                self.owners.pop(table, None)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
            self.connections.discard(this)

    async def _answer(self, client: Client, line: bytes) -> None:
        request_id: Any = None
        try:
            message = json.loads(line)
            if not isinstance(message, dict):
                raise ProtocolError("a request is a JSON object")
            request_id = message.get("id")
            handler = self._handlers.get(message.get("op", ""))
            if handler is None:
                raise ProtocolError(f"unknown op {message.get('op')!r}")
            reply = {"id": request_id, "ok": True, **await handler(client, message)}
        except (json.JSONDecodeError, ProtocolError, RoomError, OfferError) as exc:
            reply = {"id": request_id, "ok": False, "error": str(exc)}
        client.send(reply)

    async def _locked(self, table: str, work: Awaitable[Any]) -> Any:
        lock = self._locks.setdefault(table, asyncio.Lock())
        async with lock:
            result = await work
        if table not in self.sfu.rooms and not lock.locked():
            self._locks.pop(table, None)
        return result

    def _table(self, client: Client, message: dict[str, Any]) -> str:
        table = _field(message, "table", str)
        self.owners[table] = client
        return table

    async def _ping(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def _stats(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        return self.sfu.stats()

    async def _join(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table, player = self._table(client, message), _field(message, "player", str)
        mic, listen = _flag(message, "mic", True), _flag(message, "listen", True)

        async def join() -> None:
            self.sfu.join(table, player, mic=mic, listen=listen)

        await self._locked(table, join())
        return {}

    async def _offer(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table, player = self._table(client, message), _field(message, "player", str)
        sdp = _field(message, "sdp", str)
        return {"sdp": await self._locked(table, self.sfu.answer(table, player, sdp))}

    async def _mic(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table, player = self._table(client, message), _field(message, "player", str)
        on = _field(message, "on", bool)

        async def toggle() -> None:
            self.sfu.set_mic(table, player, on)

        await self._locked(table, toggle())
        return {}

    async def _listen(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table, player = self._table(client, message), _field(message, "player", str)
        on = _field(message, "on", bool)

        async def toggle() -> None:
            self.sfu.set_listen(table, player, on)

        await self._locked(table, toggle())
        return {}

    async def _leave(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table, player = self._table(client, message), _field(message, "player", str)
        await self._locked(table, self.sfu.leave(table, player))
        return {}

    async def _close(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table = _field(message, "table", str)
        await self._locked(table, self.sfu.close(table))
        self.owners.pop(table, None)
        return {}


async def serve(
    socket_path: Path, ice: IceConfig, *, watch_stdin: bool, tick: float = TICK
) -> None:
    """Listen on `socket_path` until SIGTERM/SIGINT or (with `watch_stdin`) stdin EOF; while
    audio flows, read the sockets in ticks of `tick` seconds (rtc/ticks.py; 0: at once)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    server_state = Server(ice)
    with contextlib.suppress(FileNotFoundError):
        socket_path.unlink()
    server = await asyncio.start_unix_server(
        server_state.handle_connection, path=str(socket_path), limit=MAX_LINE
    )
    os.chmod(socket_path, 0o600)
    levels = asyncio.create_task(server_state.sfu.run_levels())
    ticks = Ticks(loop, tick, lambda: passthrough.Counters.received) if tick else None
    if ticks is not None:
        ticks.start()
    watcher = asyncio.create_task(_wait_stdin_eof(stop)) if watch_stdin else None
    logger.info("voice SFU listening on %s", socket_path)
    print("ready", flush=True)  # for whoever waits on our stdout (tests, the benchmark)
    try:
        await stop.wait()
    finally:
        if ticks is not None:
            ticks.stop()
        server.close()
        for client in list(server_state.clients):
            client.writer.close()
        # each connection's handler closes its tables; let them finish before the rest
        await asyncio.gather(*server_state.connections, return_exceptions=True)
        for task in (levels, watcher):
            if task is not None:
                task.cancel()
        await asyncio.gather(levels, *([watcher] if watcher else []), return_exceptions=True)
        await server_state.sfu.shutdown()
        with contextlib.suppress(FileNotFoundError):
            socket_path.unlink()


async def _wait_stdin_eof(stop: asyncio.Event) -> None:
    """The parent holds our stdin open; EOF means it is gone and so should we be."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while await reader.read(4096):
        pass
    stop.set()


def _ice_servers(text: str) -> tuple[IceServer, ...]:
    entries = json.loads(text)
    if not isinstance(entries, list):
        raise argparse.ArgumentTypeError("--ice-servers takes a JSON list")
    return tuple(
        IceServer(e["urls"], e.get("username"), e.get("credential"))
        if isinstance(e, dict)
        else IceServer(str(e))
        for e in entries
    )


def _tick_ms(text: str) -> float:
    """`--tick-ms` → seconds: 0 (each datagram read as it comes) up to MAX_TICK."""
    try:
        ms = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--tick-ms takes milliseconds, not {text!r}") from None
    if not 0 <= ms <= MAX_TICK * 1000:
        raise argparse.ArgumentTypeError(f"--tick-ms is 0 to {MAX_TICK * 1000:g} ms")
    return ms / 1000


def parse_args(argv: list[str] | None) -> tuple[Path, IceConfig, bool, float]:
    """Command line → (socket path, ICE config, watch stdin, tick in seconds)."""
    parser = argparse.ArgumentParser(prog="python -m rtc", description=__doc__)
    parser.add_argument("--socket", type=Path, required=True, help="unix socket to listen on")
    parser.add_argument(
        "--ice-servers",
        type=_ice_servers,
        default=(),
        help='JSON list of STUN/TURN servers: [{"urls": "turn:h:3478", "username": …}]',
    )
    parser.add_argument(
        "--address",
        action="append",
        help="IP address or interface to offer (repeatable; default: all but loopback)",
    )
    parser.add_argument("--ports", type=parse_port_range, help="UDP port range, e.g. 40000-40099")
    parser.add_argument(
        "--watch-stdin", action="store_true", help="exit when stdin closes (parent died)"
    )
    parser.add_argument(
        "--drop-after",
        type=float,
        help="seconds without an answer to ICE consent checks before a peer is dropped (~30)",
    )
    parser.add_argument(
        "--tick-ms",
        type=_tick_ms,
        default=TICK,
        help=f"while audio flows, read the sockets once per tick (default {TICK * 1000:g}; "
        "0: each datagram as it comes)",
    )
    args = parser.parse_args(argv)
    if args.drop_after is not None:
        drop_after(args.drop_after)
    addresses = resolve_addresses(args.address) if args.address else None
    ice = IceConfig(args.ice_servers, addresses, args.ports)
    return args.socket, ice, args.watch_stdin, args.tick_ms


def main(argv: list[str] | None = None) -> None:
    """Entry point of the SFU process (`python -m rtc`)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s rtc %(levelname)s %(message)s")
    for chatty in ("aioice", "aiortc"):  # a line per ICE check otherwise
        logging.getLogger(chatty).setLevel(logging.WARNING)
    socket_path, ice, watch_stdin, tick = parse_args(argv)
    passthrough.install()
    offer_addresses(ice.addresses)
    with asyncio.Runner(loop_factory=lambda: loop_factory(ice)) as runner:
        runner.run(serve(socket_path, ice, watch_stdin=watch_stdin, tick=tick))
