"""The web process's connection to the SFU (rtc/): blocking JSON-line requests over the
unix socket, the SFU's events handed to a callback (docs/voice-protocol.md).

Why its own module: it is the one place that speaks the wire format, and it uses only
blocking sockets and `threading` primitives — green under `eventlet.monkey_patch()` (what
`svara serve` does), real under `async_mode='threading'`; never asyncio, because aiortc
breaks under eventlet (the SFU is its own process for that reason, docs/architecture.md).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

Spawn = Callable[..., Any]  # socketio.start_background_task
Sleep = Callable[[float], Any]  # socketio.sleep
EventSink = Callable[[dict[str, Any]], None]

REQUEST_TIMEOUT = 15.0
CONNECT_TIMEOUT = 15.0
STATS_TIMEOUT = 2.0  # `/healthz` and `/metrics` answer before a monitor's own timeout


class VoiceUnavailable(RuntimeError):
    """The SFU is not running (starting, restarting, or voice is disabled)."""


class VoiceError(RuntimeError):
    """The SFU refused a request (unknown member, bad offer…)."""


def default_spawn(target: Callable[..., Any], *args: Any) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


class SfuClient:
    """One connection to the SFU: blocking requests, events handed to `on_event`."""

    def __init__(self, sock: socket.socket, on_event: EventSink, spawn: Spawn) -> None:
        self._sock = sock
        self._reader = sock.makefile("rb")
        self._on_event = on_event
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._pending: dict[int, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self.closed = threading.Event()
        # When the SFU last said anything (a reply, even a late one, or an event): the
        # supervisor tells a busy SFU from a hung one by it.
        self.heard = time.monotonic()
        spawn(self._read)

    @classmethod
    def connect(
        cls,
        path: Path,
        on_event: EventSink,
        *,
        spawn: Spawn = default_spawn,
        sleep: Sleep = time.sleep,
        timeout: float = CONNECT_TIMEOUT,
    ) -> SfuClient:
        """Connect, retrying while the SFU is still starting (bounded by `timeout`)."""
        deadline = time.monotonic() + timeout
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(path))
                return cls(sock, on_event, spawn)
            except OSError:
                sock.close()
                if time.monotonic() > deadline:
                    raise VoiceUnavailable(f"no voice SFU at {path}") from None
                sleep(0.05)

    def request(self, op: str, *, within: float = REQUEST_TIMEOUT, **fields: Any) -> dict[str, Any]:
        """Send one request and wait `within` seconds for its reply (VoiceError if refused,
        VoiceUnavailable if none came)."""
        if self.closed.is_set():
            raise VoiceUnavailable("the voice SFU connection is closed")
        request_id = next(self._ids)
        done, box = threading.Event(), list[dict[str, Any]]()
        self._pending[request_id] = (done, box)
        line = json.dumps({"id": request_id, "op": op, **fields}).encode() + b"\n"
        try:
            with self._lock:
                self._sock.sendall(line)
        except OSError as exc:
            self._pending.pop(request_id, None)
            raise VoiceUnavailable(f"voice SFU unreachable: {exc}") from exc
        if not done.wait(within) or not box:
            self._pending.pop(request_id, None)
            raise VoiceUnavailable(f"no answer from the voice SFU to {op!r}")
        reply = box[0]
        if not reply["ok"]:
            raise VoiceError(reply["error"])
        return reply

    def _read(self) -> None:
        try:
            for line in self._reader:
                self.heard = time.monotonic()
                message = json.loads(line)
                if "event" in message:
                    self._dispatch(message)
                elif (waiter := self._pending.pop(message.get("id"), None)) is not None:
                    done, box = waiter
                    box.append(message)
                    done.set()
        except (OSError, ValueError) as exc:
            log.warning("voice SFU connection lost: %s", exc)
        finally:
            self.closed.set()
            for done, _ in self._pending.values():
                done.set()  # waiters see an empty box: VoiceUnavailable

    def _dispatch(self, event: dict[str, Any]) -> None:
        try:
            self._on_event(event)
        except Exception:  # one bad handler must not end the connection
            log.exception("voice event handler failed for %s", event.get("event"))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
