"""Voice, seen from the web process: the SFU's supervisor, its client, the voice state.

The SFU (rtc/) is its own asyncio process because aiortc breaks under eventlet
(architecture.md); this module never imports it and never uses asyncio. It starts
`python -m rtc` as a child, talks to it over a unix socket in the instance folder with
JSON lines (docs/voice-protocol.md), and restarts it when it dies; tables go on without
voice meanwhile and the browsers are asked to reconnect once it is back. Only blocking
sockets and `threading` primitives are used: under `eventlet.monkey_patch()` (what
`svara serve` does) they are green, under `async_mode='threading'` they are real. Tasks
and sleeps come from the caller (`socketio.start_background_task`, `socketio.sleep`).

`VoiceHub` keeps each table's voice state (who joined, mic, listen) — the web process
is its source of truth, so that the toggles survive a reconnect and an SFU restart.

Why one module of ~600 lines: it is the web process's whole side of the SFU protocol
(docs/voice-protocol.md) — the process, its client and the state it re-sends after a
restart — with no part of it used without the others.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import itertools
import json
import logging
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

log = logging.getLogger(__name__)

Spawn = Callable[..., Any]  # socketio.start_background_task
Sleep = Callable[[float], Any]  # socketio.sleep
EventSink = Callable[[dict[str, Any]], None]

#: The socket file name in the instance folder.
SOCKET_NAME = "voice.sock"
#: A unix socket path longer than this cannot be bound (sun_path is 108 bytes).
MAX_SOCKET_PATH = 100
REQUEST_TIMEOUT = 15.0
CONNECT_TIMEOUT = 15.0
#: Seconds between checks that the SFU still runs, and the longest wait between restarts.
WATCH_INTERVAL = 0.5
MAX_BACKOFF = 30.0


class VoiceUnavailable(RuntimeError):
    """The SFU is not running (starting, restarting, or voice is disabled)."""


class VoiceError(RuntimeError):
    """The SFU refused a request (unknown member, bad offer…)."""


def _default_spawn(target: Callable[..., Any], *args: Any) -> threading.Thread:
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
        spawn(self._read)

    @classmethod
    def connect(
        cls,
        path: Path,
        on_event: EventSink,
        *,
        spawn: Spawn = _default_spawn,
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

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request and wait for its reply (VoiceError if refused)."""
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
        if not done.wait(REQUEST_TIMEOUT) or not box:
            self._pending.pop(request_id, None)
            raise VoiceUnavailable(f"no answer from the voice SFU to {op!r}")
        reply = box[0]
        if not reply["ok"]:
            raise VoiceError(reply["error"])
        return reply

    def _read(self) -> None:
        try:
            for line in self._reader:
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


#: How long a browser's TURN login lasts unless VOICE_TURN_TTL says otherwise (seconds).
TURN_TTL = 43200


def is_turn(server: dict[str, Any]) -> bool:
    """A TURN entry of a browser-style ICE server list (`urls`: one URL or a list)."""
    urls = server.get("urls", ())
    return any(
        str(u).startswith(("turn:", "turns:")) for u in ([urls] if isinstance(urls, str) else urls)
    )


def turn_credentials(secret: str, player: str, ttl: int, now: float) -> tuple[str, str]:
    """coturn's `use-auth-secret` login (the TURN REST API scheme): the username is
    "expiry:user" (a Unix time; the name percent-encoded, so it is ASCII and has no colon),
    the password base64(HMAC-SHA1(secret, username)). coturn recomputes it from the shared
    secret and refuses it after the expiry: nothing to store, nothing lasting to leak."""
    username = f"{int(now) + ttl}:{quote(player, safe='')}"
    digest = hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()
    return username, base64.b64encode(digest).decode()


def announce(sdp: str, public: str) -> str:
    """The SFU's answer with each IPv4 host candidate also offered at `public`, the same
    port (a router forwarding the UDP range keeps the numbers, docs/hosting.md): the address
    STUN would have found, stated instead (VOICE_PUBLIC_ADDRESS)."""
    lines = []
    for line in sdp.split("\r\n"):
        lines.append(line)
        words = line.split()
        if line.startswith("a=candidate:") and words[7:8] == ["host"] and "." in words[4]:
            component, transport, priority, address, port = words[1:6]
            lines.append(
                f"a=candidate:srflx{public.replace('.', '')} {component} {transport} "
                f"{int(priority) >> 1} {public} {port} typ srflx raddr {address} rport {port}"
            )
    return "\r\n".join(lines)


@dataclass(frozen=True)
class VoiceSettings:
    """What the SFU is started with (app config keys VOICE_*, docs/hosting.md)."""

    socket_path: Path
    ice_servers: tuple[dict[str, str], ...] = ()
    addresses: tuple[str, ...] = ()
    ports: str | None = None
    turn_secret: str | None = None
    turn_ttl: int = TURN_TTL
    public_address: str | None = None
    drop_after: float | None = None

    @classmethod
    def from_config(cls, config: dict[str, Any], instance: Path) -> VoiceSettings:
        """VOICE_ICE_SERVERS (list of {urls, username, credential}), VOICE_ADDRESSES
        (IPs or interface names; empty = all but loopback), VOICE_PORTS ('40000-40099'),
        VOICE_TURN_SECRET and VOICE_TURN_TTL (per-browser TURN logins), VOICE_PUBLIC_ADDRESS
        (the router's public IP, without STUN), VOICE_DROP_AFTER (seconds without ICE
        consent before the SFU drops a peer; aioice's ~30 s when unset)."""
        return cls(
            socket_path=socket_path(instance),
            ice_servers=tuple(config.get("VOICE_ICE_SERVERS") or ()),
            addresses=tuple(config.get("VOICE_ADDRESSES") or ()),
            ports=config.get("VOICE_PORTS") or None,
            turn_secret=config.get("VOICE_TURN_SECRET") or None,
            turn_ttl=int(config.get("VOICE_TURN_TTL") or TURN_TTL),
            public_address=config.get("VOICE_PUBLIC_ADDRESS") or None,
            drop_after=float(config["VOICE_DROP_AFTER"])
            if config.get("VOICE_DROP_AFTER")
            else None,
        )

    def command(self) -> list[str]:
        """The SFU's command line. With a TURN secret the SFU gets no TURN entry: its logins
        would expire under it, and the browsers' relays reach it at its own address."""
        servers = [s for s in self.ice_servers if not (self.turn_secret and is_turn(s))]
        command = [sys.executable, "-m", "rtc", "--socket", str(self.socket_path)]
        command += ["--watch-stdin", "--ice-servers", json.dumps(servers)]
        for address in self.addresses:
            command += ["--address", address]
        if self.ports:
            command += ["--ports", self.ports]
        if self.drop_after is not None:
            command += ["--drop-after", str(self.drop_after)]
        return command

    def browser_ice_servers(self, player: str, now: float | None = None) -> list[dict[str, str]]:
        """The STUN/TURN list for one player's RTCPeerConnection; with VOICE_TURN_SECRET
        each TURN entry carries his own time-limited login instead of a shared password."""
        servers = [dict(server) for server in self.ice_servers]
        if self.turn_secret:
            when = time.time() if now is None else now
            username, password = turn_credentials(self.turn_secret, player, self.turn_ttl, when)
            for server in filter(is_turn, servers):
                server.update(username=username, credential=password)
        return servers


def socket_path(instance: Path) -> Path:
    """The instance folder's socket, or a short temp path when that would be too long."""
    path = instance / SOCKET_NAME
    if len(str(path)) <= MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(str(instance).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"svara-voice-{digest}.sock"


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
        spawn: Spawn = _default_spawn,
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
                if self._healthy():
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

    def _launch(self) -> None:
        if self.starts:
            log.warning("voice SFU is gone; restarting it (tables go on without voice)")
        self.starts += 1
        # stdin stays open for the child's lifetime: when this process dies, it exits too.
        self._process = subprocess.Popen(
            self.settings.command(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
        )
        self._client = SfuClient.connect(
            self.settings.socket_path, self._on_event, spawn=self._spawn, sleep=self._sleep
        )

    def _terminate(self) -> None:
        client, process = self._client, self._process
        self._client = self._process = None
        if client is not None:
            client.close()
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()  # the SFU closes its rooms and exits
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def stop(self) -> None:
        """Stop watching and end the SFU (blocks until it exited, bounded)."""
        self._running = False
        self._stopped.wait(timeout=30)


@dataclass
class VoiceMember:
    """A seated player's voice toggles, kept by the web process; `away` while the SFU has
    dropped his connection and his page has not reconnected (the table sees him gone)."""

    mic: bool = True
    listen: bool = True
    away: bool = False


@dataclass
class _TableVoice:
    seats: int
    members: dict[str, VoiceMember] = field(default_factory=dict)


#: Delivers a voice event: (event name, table, player or None for the whole table, payload).
Deliver = Callable[[str, int, str | None, dict[str, Any]], None]


def check_offer(sdp: str, slots: int) -> None:
    """VoiceError unless `sdp` is what static/js/voice.js offers: a DTLS fingerprint (for the
    session or for every m-line; without one no media could be secured) and at most `slots`
    (seats − 1) receive-only m-lines (docs/voice-protocol.md). The SFU parses the rest."""
    sections = re.split(r"\r?\n(?=m=)", sdp)
    session, media = sections[0], sections[1:]
    if not media:
        raise VoiceError("the offer has no media")
    fingerprint = re.compile(r"^a=fingerprint:\S+ \S+", re.MULTILINE)
    if not fingerprint.search(session) and not all(fingerprint.search(m) for m in media):
        raise VoiceError("the offer has no DTLS fingerprint")
    receiving = sum(1 for m in media if re.search(r"^a=recvonly\s*$", m, re.MULTILINE))
    if receiving > slots:
        raise VoiceError(f"{receiving} receive slots, at most {slots} (the seats but one)")


class VoiceHub:
    """The voice of every table of this process, over the supervised SFU.

    The Socket.IO layer calls these methods for seated players only (spectators never
    publish nor receive) and sends the events `deliver` gets (docs/voice-protocol.md).
    """

    def __init__(self, settings: VoiceSettings, deliver: Deliver) -> None:
        self.settings = settings
        self._deliver = deliver
        self._tables: dict[int, _TableVoice] = {}
        self._lock = threading.Lock()
        self.supervisor: Supervisor | None = None

    def attach(self, supervisor: Supervisor) -> None:
        """Use `supervisor`'s SFU (built with `self.on_sfu_event` and `self.on_restart`)."""
        self.supervisor = supervisor

    def _sfu(self) -> SfuClient:
        if self.supervisor is None:
            raise VoiceUnavailable("voice is not enabled on this server")
        return self.supervisor.client

    # -- calls from the Socket.IO layer -------------------------------------------------

    def join(self, table: int, player: str, seats: int) -> dict[str, Any]:
        """A seated player's browser starts voice; returns what it needs to offer."""
        with self._lock:
            voice = self._tables.setdefault(table, _TableVoice(seats))
            voice.seats = seats
            member = voice.members.setdefault(player, VoiceMember())
            member.away = False  # back (a reconnect after a drop joins again)
        self._sfu_join(table, player, member)
        self._announce(table, player)
        return {
            "slots": seats - 1,
            "iceServers": self.settings.browser_ice_servers(player),
            "mic": member.mic,
            "listen": member.listen,
            "members": self.members(table),
        }

    def offer(self, table: int, player: str, seats: int, sdp: str) -> str:
        """The browser's offer → the SFU's answer (a re-offer replaces the old peer). An
        offer the page never makes is refused here, before the SFU spends anything on it."""
        self._member(table, player)
        check_offer(sdp, seats - 1)
        answer = self._sfu().request("offer", table=str(table), player=player, sdp=sdp)["sdp"]
        public = self.settings.public_address
        return announce(answer, public) if public else answer

    def set_mic(self, table: int, player: str, on: bool) -> None:
        """Mic toggle; everyone at the table is told (the muted icon). Kept even while
        the SFU restarts: the new one gets it with the re-join."""
        self._member(table, player).mic = on
        self._toggle("mic", table, player, on)

    def set_listen(self, table: int, player: str, on: bool) -> None:
        """Listen toggle; everyone at the table is told."""
        self._member(table, player).listen = on
        self._toggle("listen", table, player, on)

    def _toggle(self, op: str, table: int, player: str, on: bool) -> None:
        self._announce(table, player)
        with contextlib.suppress(VoiceUnavailable):
            self._sfu().request(op, table=str(table), player=player, on=on)

    def leave(self, table: int, player: str) -> None:
        """Stand up / leave the table: the player's voice ends and its toggles are forgotten."""
        with self._lock:
            voice = self._tables.get(table)
            if voice is None or voice.members.pop(player, None) is None:
                return
            if not voice.members:
                del self._tables[table]
        with contextlib.suppress(VoiceUnavailable):
            self._sfu().request("leave", table=str(table), player=player)
        self._deliver("voice:member", table, None, {"table": table, "player": player, "gone": True})

    def close(self, table: int) -> None:
        """The table closes: every peer of its room goes."""
        with self._lock:
            self._tables.pop(table, None)
        with contextlib.suppress(VoiceUnavailable):
            self._sfu().request("close", table=str(table))

    def members(self, table: int) -> dict[str, dict[str, bool]]:
        """Each voice member's toggles (shown as muted / not-listening icons)."""
        with self._lock:
            voice = self._tables.get(table)
            members = dict(voice.members) if voice else {}
        return {p: {"mic": m.mic, "listen": m.listen} for p, m in members.items() if not m.away}

    # -- calls from the supervisor -----------------------------------------------------

    def on_sfu_event(self, event: dict[str, Any]) -> None:
        """Translate an SFU event into a Socket.IO event for one player or the table."""
        try:
            table = int(event["table"])
        except (KeyError, ValueError):
            return
        kind = event["event"]
        if kind == "slots":
            slots = event["slots"]
            self._deliver("voice:slots", table, event["player"], {"table": table, "slots": slots})
        elif kind == "peer":
            payload = {"table": table, "state": event["state"]}
            self._deliver("voice:peer", table, event["player"], payload)
            self._follow_peer(table, event["player"], event["state"])
        elif kind == "levels":
            self._deliver("voice:levels", table, None, {"table": table, "levels": event["levels"]})

    def on_restart(self) -> None:
        """A new SFU has no rooms: re-join every member, then ask the browsers to re-offer."""
        with self._lock:
            tables = {t: dict(v.members) for t, v in self._tables.items()}
        for table, members in tables.items():
            for player, member in members.items():
                with contextlib.suppress(VoiceUnavailable, VoiceError):
                    self._sfu_join(table, player, member)
            self._deliver("voice:restart", table, None, {"table": table})

    def _follow_peer(self, table: int, player: str, state: str) -> None:
        """A dropped connection (`failed`) takes the player out of the table's voice until
        his page reconnects (`connected`): the others see him leave and come back."""
        with self._lock:
            voice = self._tables.get(table)
            member = voice.members.get(player) if voice else None
            if member is None or member.away == (state == "failed"):
                return
            if state not in ("failed", "connected"):
                return
            member.away = state == "failed"
        if member.away:
            log.warning("voice of %r at table %s dropped; waiting for his page", player, table)
            gone = {"table": table, "player": player, "gone": True}
            self._deliver("voice:member", table, None, gone)
        else:
            self._announce(table, player)

    # -- helpers ------------------------------------------------------------------------

    def _sfu_join(self, table: int, player: str, member: VoiceMember) -> None:
        self._sfu().request(
            "join", table=str(table), player=player, mic=member.mic, listen=member.listen
        )

    def _member(self, table: int, player: str) -> VoiceMember:
        with self._lock:
            voice = self._tables.get(table)
            member = voice.members.get(player) if voice else None
        if member is None:
            raise VoiceError(f"{player!r} has not joined the voice of table {table}")
        return member

    def _announce(self, table: int, player: str) -> None:
        member = self._member(table, player)
        payload = {"table": table, "player": player, "mic": member.mic, "listen": member.listen}
        self._deliver("voice:member", table, None, payload)


def start(
    config: dict[str, Any], instance: Path, deliver: Deliver, spawn: Spawn, sleep: Sleep
) -> VoiceHub:
    """Create the hub and start its supervised SFU; `svara serve` calls this once.

    With VOICE = False in the config the hub answers every call with VoiceUnavailable.
    """
    hub = VoiceHub(VoiceSettings.from_config(config, instance), deliver)
    if config.get("VOICE", True):
        supervisor = Supervisor(
            hub.settings, hub.on_sfu_event, hub.on_restart, spawn=spawn, sleep=sleep
        )
        hub.attach(supervisor)
        supervisor.start()
    return hub


#: The table's seat count if `name` is seated at `table`, else None (spectator, stranger).
SeatsOf = Callable[[int, str], int | None]


def register_events(
    hub: VoiceHub, seats_of: SeatsOf, on: Callable[..., None] | None = None
) -> None:
    """Register the `voice:*` Socket.IO events (docs/protocol.md «Voice»).

    `on` is `app.protocol.on` (checked connection and payload, handler gets the player);
    each handler refuses anyone not seated at the table, and turns an SFU refusal or
    outage into a `ProtocolError` (an `error` event and a failed ack).
    """
    from app import protocol  # the Flask side; this module stays importable without it

    register = on or protocol.on
    table = {"table": int}

    def seated(run: Callable[[int, str, int, dict[str, Any]], Any]) -> Callable[..., Any]:
        def handler(player: Any, payload: dict[str, Any]) -> Any:
            seats = seats_of(payload["table"], player.name)
            if seats is None:
                raise protocol.ProtocolError("voice is for the players seated at the table")
            try:
                return run(payload["table"], player.name, seats, payload)
            except (VoiceUnavailable, VoiceError) as exc:
                raise protocol.ProtocolError(str(exc)) from exc

        return handler

    register(
        "voice:join",
        seated(lambda t, name, seats, p: {"ok": True, **hub.join(t, name, seats)}),
        required=table,
    )
    register(
        "voice:offer",
        seated(lambda t, name, seats, p: {"ok": True, "sdp": hub.offer(t, name, seats, p["sdp"])}),
        required={**table, "sdp": str},
    )
    register(
        "voice:mic",
        seated(lambda t, name, seats, p: hub.set_mic(t, name, p["on"])),
        required={**table, "on": bool},
    )
    register(
        "voice:listen",
        seated(lambda t, name, seats, p: hub.set_listen(t, name, p["on"])),
        required={**table, "on": bool},
    )
    register("voice:leave", seated(lambda t, name, seats, p: hub.leave(t, name)), required=table)
    # Who is in the voice, for a seated page that has not joined it (yet): its marks by the
    # seats from the start, kept current by the table's voice:member events. The web
    # process's own state: answered while the SFU restarts, and empty with voice off.
    register(
        "voice:members",
        seated(lambda t, name, seats, p: {"ok": True, "members": hub.members(t)}),
        required=table,
    )
