"""The SFU as a child process of the web process: started, watched, restarted when it dies
(with a growing wait) or hangs, ended with the server (docs/voice-protocol.md).

Hung or busy: the watch task pings the SFU every `PING_INTERVAL`; a ping unanswered within
`PING_TIMEOUT` is only logged (an SFU busy with many peers answers late, and any line it
sends counts as an answer). One that has said nothing at all for `HANG_AFTER` seconds is
hung (stopped, deadlocked): it is killed and a new one started, and the pages re-join as
after a crash — voice is back within about `HANG_AFTER` plus a start (under 30 s).

Why its own module: the process's life is independent of what the voice carries; the hub
only asks it for the live client (`VoiceUnavailable` while there is none: the tables go on
without voice) and is told when a new SFU replaced the old one. Tasks and sleeps come from
the caller (`socketio.start_background_task`, `socketio.sleep`).
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from .client import (
    EventSink,
    SfuClient,
    Sleep,
    Spawn,
    VoiceError,
    VoiceUnavailable,
    default_spawn,
)
from .settings import VoiceSettings

log = logging.getLogger(__name__)

#: Seconds between checks that the SFU still runs, and the longest wait between restarts.
WATCH_INTERVAL = 0.5
MAX_BACKOFF = 30.0
#: Seconds between pings, a ping's own wait, and the silence after which the SFU is hung.
PING_INTERVAL = 2.0
PING_TIMEOUT = 3.0
HANG_AFTER = 15.0


class Supervisor:
    """Runs the SFU process, restarts it when it dies, and holds the connected client.


    `on_event` gets the SFU's events; `on_restart` is called (from the watch task) each
    time a new SFU is connected after the first: the old one's rooms are gone.
    """

    def __init__(
        self,
        settings: VoiceSettings,
        on_event: EventSink,
        on_restart: Callable[[], None],
        *,
        spawn: Spawn = default_spawn,
        sleep: Sleep = time.sleep,
    ) -> None:
        self.settings = settings
        self._on_event = on_event
        self._on_restart = on_restart
        self._spawn = spawn
        self._sleep = sleep
        self._process: subprocess.Popen[bytes] | None = None
        self._client: SfuClient | None = None
        self._running = False
        self._stopped = threading.Event()
        self._next_ping = 0.0
        self.missed = 0  # pings unanswered in a row
        self.starts = 0

    @property
    def client(self) -> SfuClient:
        """The live connection, or VoiceUnavailable (the table plays on without voice)."""
        client = self._client
        if client is None or client.closed.is_set():
            raise VoiceUnavailable("voice is restarting")
        return client

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the SFU and the task that watches it (returns at once)."""
        self._running = True
        self._spawn(self._watch)

    def _watch(self) -> None:
        backoff = WATCH_INTERVAL
        try:
            while self._running:
                if self._healthy() and self._answering():
                    backoff = WATCH_INTERVAL
                    self._sleep(WATCH_INTERVAL)
                    continue
                self._terminate()
                try:
                    self._launch()
                except (OSError, VoiceUnavailable) as exc:
                    log.error("voice SFU did not start: %s; retrying in %.0f s", exc, backoff)
                    self._sleep(backoff)
                    backoff = min(backoff * 2, MAX_BACKOFF)
                    continue
                if self.starts > 1:
                    self._on_restart()
        finally:
            self._terminate()
            self._stopped.set()

    def _healthy(self) -> bool:
        process, client = self._process, self._client
        return (
            process is not None
            and process.poll() is None
            and client is not None
            and not client.closed.is_set()
        )

    def _answering(self) -> bool:
        """Ping when one is due; False once the SFU has said nothing for `HANG_AFTER`."""
        client = self._client
        assert client is not None
        now = time.monotonic()
        if now >= self._next_ping:
            self._next_ping = now + PING_INTERVAL
            try:
                client.request("ping", within=PING_TIMEOUT)
            except (VoiceUnavailable, VoiceError):
                self.missed += 1
                log.warning("voice SFU missed %d ping(s) in a row", self.missed)
            else:
                if self.missed:
                    log.warning("voice SFU answers again after %d missed ping(s)", self.missed)
                self.missed = 0
        silent = time.monotonic() - client.heard
        if silent < HANG_AFTER:
            return True
        log.error("voice SFU said nothing for %.0f s: hung; replacing it", silent)
        return False

    def _launch(self) -> None:
        if self.starts:
            log.warning("voice SFU is gone; restarting it (tables go on without voice)")
        self.starts += 1
        # stdin stays open for the child's lifetime: when this process dies, it exits too.
        self._process = subprocess.Popen(
            self.settings.command(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
        )
        self.missed, self._next_ping = 0, 0.0
        self._client = SfuClient.connect(
            self.settings.socket_path, self._on_event, spawn=self._spawn, sleep=self._sleep
        )

    def _terminate(self) -> None:
        """End the SFU: asked to (its stdin closes), killed when it does not end or, being
        hung, cannot hear."""
        client, process = self._client, self._process
        self._client = self._process = None
        hung = client is not None and time.monotonic() - client.heard >= HANG_AFTER
        if client is not None:
            client.close()
        if process is None:
            return
        if hung:
            process.kill()
        end_sfu(process, timeout=10)

    def stop(self) -> None:
        """Stop watching and end the SFU (blocks until it exited, bounded)."""
        self._running = False
        self._stopped.wait(timeout=30)


def end_sfu(process: subprocess.Popen[Any], timeout: float) -> None:
    """Ask an SFU process to end (its stdin closes: it closes its rooms and exits) and wait
    for it; killed when it has not ended within `timeout` seconds. The supervisor's and the
    voice benchmark's SFU end the same way."""
    if process.stdin is not None:
        with contextlib.suppress(OSError):
            process.stdin.close()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)
