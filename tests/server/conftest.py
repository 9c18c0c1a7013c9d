"""A real `svara serve` on a free loopback port, and real clients for it (docs/hosting.md).

Nothing here sleeps to wait: the server says when it listens (a line on stdout), and socket
events are waited for in queues with timeouts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import re
import signal
import ssl
import subprocess
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
import socketio
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

WAIT = 20.0  # seconds: generous bounds on events that normally take milliseconds
# A server's first line: importing the web stack took over 20 s at a load average of 25 on
# this 2-core machine (docs/testing.md); the bound is on a start, not on an event.
STARTUP = 90.0
SVARA = str(Path(sys.executable).with_name("svara"))
ASYNC_MODES = ("eventlet", "threading")
LISTENING = re.compile(r"listening on (https?://\S+)")
PASSWORD = re.compile(r"Administrator created: name (\S+), password (\S+)")
CSRF = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"')
# Test servers register and log in hundreds of players from 127.0.0.1 within minutes; the
# tests of the account limits themselves (test_guard.py) start servers with the defaults.
# So do the load generator's hundreds of sockets opened at once (the handshake bounds).
ROOMY_LIMITS = {
    **{
        f"SVARA_{key}": "100000/minute"
        for key in ("LOGIN_RATE", "LOGIN_RATE_TOTAL", "SIGNUP_RATE", "SIGNUP_RATE_TOTAL")
    },
    "SVARA_HANDSHAKES_PER_ADDRESS": "100000",
    "SVARA_HANDSHAKES_PENDING": "100000",
    "SVARA_CONNECTIONS_PER_ADDRESS": "100000",  # tests/hosting/test_connections.py: its own
    # Many players registered at once (the load benchmarks) wait for a hash, not a 429.
    "SVARA_HASH_QUEUE": "100000",
}


@dataclass
class Server:
    """A running `svara serve` subprocess and everything it printed."""

    process: subprocess.Popen[str]
    instance: Path
    async_mode: str
    lines: queue.Queue[str] = field(default_factory=queue.Queue)
    output: list[str] = field(default_factory=list)
    url: str = ""

    def wait_for(self, pattern: re.Pattern[str], quiet: float = WAIT) -> re.Match[str]:
        """The first line (from now on) matching `pattern`; fails if the server exits or
        prints nothing for `quiet` seconds."""
        while True:
            try:
                line = self.lines.get(timeout=quiet)
            except queue.Empty:
                raise AssertionError(
                    f"server printed no {pattern.pattern!r}: {self.output}"
                ) from None
            if line is None:
                raise AssertionError(f"server exited: {''.join(self.output)}")
            if match := pattern.search(line):
                return match

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Send `sig` and wait for the server's end; then whatever is left of its process
        group (its SFU after a `kill -9`, a server that did not end) is killed."""
        try:
            if self.process.poll() is None:
                self.process.send_signal(sig)
                self.process.wait(timeout=WAIT)
        finally:
            self.kill()

    def kill(self) -> None:
        """SIGKILL to the server's whole process group (it leads its own session)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=WAIT)


@contextlib.contextmanager
def stopped(server: Server) -> Iterator[Server]:
    """`server`, stopped on every path out (a fixture's `yield`)."""
    try:
        yield server
    finally:
        server.stop()


def start_server(
    instance: Path,
    async_mode: str,
    *options: str,
    svara: str = SVARA,
    cwd: Path | None = None,
    **env: str,
) -> Server:
    """Start `svara serve --port 0 [options]` on `instance` and wait until it listens
    (`svara`: another installation's command, e.g. an installed wheel's, run from `cwd`). It
    leads a process group of its own (with its SFU), which is killed if it does not start."""
    environment = {
        **os.environ,
        **ROOMY_LIMITS,
        "SVARA_ASYNC_MODE": async_mode,
        "PYTHONUNBUFFERED": "1",
        **env,
    }
    process = subprocess.Popen(
        [
            svara,
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--instance",
            str(instance),
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment,
        cwd=cwd,
        start_new_session=True,
    )
    server = Server(process, instance, async_mode)

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            server.output.append(line)
            server.lines.put(line)
        server.lines.put(None)  # type: ignore[arg-type]

    try:
        threading.Thread(target=pump, daemon=True).start()
        server.url = server.wait_for(LISTENING, quiet=STARTUP).group(1)
    except BaseException:
        server.kill()
        raise
    return server


def start_relayed(instance: Path, turn_port: int, secret: str, **env: str) -> Server:
    """An eventlet server whose voice offers only the loopback TURN relay on `turn_port`
    (docs/hosting.md, «TURN»), handing out logins under `secret`."""
    return start_server(
        instance,
        "eventlet",
        SVARA_VOICE_ADDRESSES='["127.0.0.1"]',
        SVARA_VOICE_ICE_SERVERS=json.dumps([{"urls": f"turn:127.0.0.1:{turn_port}?transport=udp"}]),
        SVARA_VOICE_TURN_SECRET=secret,
        **env,
    )


@contextlib.contextmanager
def servers(root: Path, **defaults: str) -> Iterator[Callable[..., Server]]:
    """A way to start servers on fresh instances below `root`, each with `defaults` under its
    own settings: `run(*options, async_mode="eventlet", **env)`. All are stopped on the way
    out, whatever happened."""
    started: list[Server] = []

    def run(*options: str, async_mode: str = "eventlet", **env: str) -> Server:
        instance = root / f"i{len(started)}"
        started.append(start_server(instance, async_mode, *options, **{**defaults, **env}))
        return started[-1]

    try:
        yield run
    finally:
        for server in started:
            server.stop()


@pytest.fixture(scope="session", params=ASYNC_MODES)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """One server per async mode for the whole session; tests use their own user names."""
    running = start_server(tmp_path_factory.mktemp(f"instance-{request.param}"), request.param)
    with stopped(running):
        yield running
    assert running.process.returncode in (0, -signal.SIGTERM), "".join(running.output)


_names = iter(range(1, 1_000_000))


def unique_name(prefix: str = "p") -> str:
    return f"{prefix}{next(_names)}_{os.getpid() % 1000}"


#: A kept-alive connection the server closes while idle (its HEADER_TIMEOUT, cli/guard.py)
#: can take a request just as it closes. A browser sends that request again, once, on a new
#: connection; so does this client. A server that hangs up on the request itself still
#: fails, twice.
#: Answers are never retried here, a 429's `Retry-After` included: the tests read them.
STALE_CONNECTION = Retry(
    total=1,
    connect=0,
    read=1,
    status=0,
    other=0,
    allowed_methods=None,
    respect_retry_after_header=False,
    raise_on_status=False,
)


class Browser:
    """An HTTP client with a cookie jar that fills forms the way a browser does (with the
    page's CSRF token)."""

    def __init__(self, url: str):
        self.url = url
        self.http = requests.Session()
        self.http.mount("http://", HTTPAdapter(max_retries=STALE_CONNECTION))

    def csrf(self, path: str) -> str:
        page = self.http.get(self.url + path, timeout=WAIT)
        match = CSRF.search(page.text)
        assert match, f"no CSRF token on {path}"
        return match.group(1)

    def post_form(
        self, path: str, data: dict[str, Any], token_from: str | None = None
    ) -> requests.Response:
        token = self.csrf(token_from or path)
        return self.http.post(
            self.url + path, data={**data, "csrf_token": token}, timeout=WAIT, allow_redirects=False
        )

    def register(self, name: str, password: str = "correct horse") -> requests.Response:
        response = self.post_form(
            "/register", {"name": name, "password": password, "confirm": password}
        )
        assert response.status_code == 302, response.text
        return response

    def login(self, name: str, password: str) -> requests.Response:
        return self.post_form("/login", {"name": name, "password": password})

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)

    def socket(self, table: int | None = None) -> Client:
        """A connection of this browser: a table page's for `table` (its handshake names
        the table, C-8.2), else another page's (the lobby)."""
        client = Client()
        client.connect(self.url, self.cookie_header(), None if table is None else {"table": table})
        return client


class Client:
    """A python-socketio client that records every event into a queue."""

    def __init__(self, sio: socketio.Client | socketio.AsyncClient | None = None) -> None:
        self.sio = sio or socketio.Client(reconnection=False)
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.seen: list[tuple[str, Any]] = []
        self.disconnected = threading.Event()
        self.refusal: Any = None  # why the server refused to connect (its `connect_error`)
        self.sio.on("*", lambda event, data=None: self.events.put((event, data)))
        self.sio.on("disconnect", lambda *args: self.disconnected.set())
        self.sio.on("connect_error", self._refused)

    def _refused(self, data: Any = None) -> None:
        self.refusal = data

    def _run(self, done: Any) -> Any:
        """What a call of `sio` gave: the threaded client has waited for it already."""
        return done

    def connect(self, url: str, cookie: str, auth: dict[str, Any] | None = None) -> None:
        self._run(
            self.sio.connect(
                url,
                headers={"Cookie": cookie},
                auth=auth,
                transports=["websocket"],
                wait_timeout=WAIT,
            )
        )

    def wait(self, event: str, timeout: float = WAIT) -> Any:
        """The payload of the next `event` (other events are kept in `seen`)."""
        while True:
            try:
                name, data = self.events.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no {event!r} within {timeout} s; saw {self.seen}") from None
            self.seen.append((name, data))
            if name == event:
                return data

    def call(self, event: str, data: Any = None) -> Any:
        """Emit and return the server's ack."""
        return self._run(self.sio.call(event, data, timeout=WAIT))

    def close(self) -> None:
        """Disconnect without waiting for the goodbye: websocket-client waits 3 s for a close
        frame that, against werkzeug's threaded server, the engine.io read loop has already
        consumed. Nothing in a test depends on the end of this, so it ends in the background."""
        if self.sio.connected:
            threading.Thread(target=self.sio.disconnect, daemon=True).start()


class TlsClient(Client):
    """A client over wss:// that trusts exactly `cert` (the server's own).

    Not the threaded client: python-engineio's reads and writes one `ssl.SSLSocket` from two
    threads at once, which now and then corrupts the TLS state so that an ack the server sent
    never arrives (python-engineio issue #461; OpenSSL objects are not thread-safe). The
    asyncio client does both on its one loop thread; the calls here wait for it.
    """

    def __init__(self, cert: Path) -> None:
        context = ssl.create_default_context(cafile=str(cert))
        super().__init__(
            socketio.AsyncClient(reconnection=False, websocket_extra_options={"ssl": context})
        )
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def _run(self, done: Coroutine[Any, Any, Any]) -> Any:
        """The asyncio client's call, awaited on its loop thread."""
        return asyncio.run_coroutine_threadsafe(done, self.loop).result(2 * WAIT)

    def close(self) -> None:
        """Disconnect, then end the loop thread."""
        if self.sio.connected:
            self._run(self.sio.disconnect())
        self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture
def browser(server: Server) -> Browser:
    return Browser(server.url)


@pytest.fixture
def player(server: Server) -> Iterator[tuple[Browser, Client, str]]:
    """A registered, logged-in player with a connected socket."""
    browser = Browser(server.url)
    name = unique_name()
    browser.register(name)
    client = browser.socket()
    try:
        yield browser, client, name
    finally:
        client.close()


@pytest.fixture(scope="module", params=ASYNC_MODES)
def fast(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """A real server with fast timers (tablekit.SCALE), one per test module and async mode."""
    from .tablekit import fast_server  # tablekit builds on this module

    module = request.module.__name__.rsplit(".", 1)[-1]
    running = fast_server(tmp_path_factory.mktemp(f"{module}-{request.param}"), request.param)
    with stopped(running):
        yield running
