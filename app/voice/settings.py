"""What the SFU is started with and what each browser is given: the VOICE_* settings
(docs/hosting.md «Voice»), the SFU's command line, each player's ICE servers with his own
TURN login, and the public address stated in the SFU's answers.

Why its own module: pure functions of the config, used by the supervisor (the command) and
by the hub (the browsers' side), and tested without any process (tests/hosting/).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .turncli import cli_address

#: The socket file name in the instance folder.
SOCKET_NAME = "voice.sock"
#: A unix socket path longer than this cannot be bound (sun_path is 108 bytes).
MAX_SOCKET_PATH = 100

#: How long a browser's TURN login lasts unless VOICE_TURN_TTL says otherwise (seconds):
#: short, since coturn cannot take a login back, only end the sessions made with it
#: (`turncli`, docs/hosting.md «TURN: the relay is not a way into the house»); the page asks
#: for a new one while its player sits (`renew_after`).
TURN_TTL = 600


def is_turn(server: dict[str, Any]) -> bool:
    """A TURN entry of a browser-style ICE server list (`urls`: one URL or a list)."""
    urls = server.get("urls", ())
    return any(
        str(u).startswith(("turn:", "turns:")) for u in ([urls] if isinstance(urls, str) else urls)
    )


def with_tls(urls: str | list[str], port: int) -> list[str]:
    """A TURN entry's URLs and, for each `turn:` host among them, `turns:HOST:PORT` over TCP
    (RFC 7065): TURN inside TLS, which a network that lets only HTTPS out still carries
    (docs/hosting.md «TURN on 443»). One entry, so the same login serves both."""
    listed = [urls] if isinstance(urls, str) else list(urls)
    tls = [tls_url(url, port) for url in listed if url.startswith("turn:")]
    return list(dict.fromkeys([*listed, *tls]))


def tls_url(url: str, port: int) -> str:
    """`turn:HOST[:PORT][?transport=…]` as `turns:HOST:port?transport=tcp`; an IPv6 HOST keeps
    its brackets. The HOST stays: it is the name the relay's certificate is for."""
    where = url.removeprefix("turn:").partition("?")[0]
    host = where.partition("]")[0] + "]" if where.startswith("[") else where.partition(":")[0]
    return f"turns:{host}:{port}?transport=tcp"


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
    ice_servers: tuple[dict[str, Any], ...] = ()
    addresses: tuple[str, ...] = ()
    ports: str | None = None
    turn_secret: str | None = None
    turn_ttl: int = TURN_TTL
    turn_cli: tuple[str, int] | None = None
    turn_cli_password: str | None = None
    turns_port: int | None = None
    public_address: str | None = None
    drop_after: float | None = None
    tick_ms: float | None = None

    @classmethod
    def from_config(cls, config: dict[str, Any], instance: Path) -> VoiceSettings:
        """VOICE_ICE_SERVERS (list of {urls, username, credential}), VOICE_ADDRESSES
        (IPs or interface names; empty = all but loopback), VOICE_PORTS ('40000-40099'),
        VOICE_TURN_SECRET and VOICE_TURN_TTL (per-browser TURN logins), VOICE_TURN_CLI and
        VOICE_TURN_CLI_PASSWORD (coturn's admin CLI, to end a relay, `turncli`),
        VOICE_TURNS_PORT (each `turn:` host offered over TLS on that port too, e.g. 443),
        VOICE_PUBLIC_ADDRESS (the router's public IP, without STUN), VOICE_DROP_AFTER
        (seconds without ICE consent before the SFU drops a peer; aioice's ~30 s when
        unset), VOICE_TICK_MS (the SFU's tick, rtc/ticks.py; its own 10 ms when unset)."""
        return cls(
            socket_path=socket_path(instance),
            ice_servers=tuple(config.get("VOICE_ICE_SERVERS") or ()),
            addresses=tuple(config.get("VOICE_ADDRESSES") or ()),
            ports=config.get("VOICE_PORTS") or None,
            turn_secret=config.get("VOICE_TURN_SECRET") or None,
            turn_ttl=int(config.get("VOICE_TURN_TTL") or TURN_TTL),
            turn_cli=cli_address(config["VOICE_TURN_CLI"])
            if config.get("VOICE_TURN_CLI")
            else None,
            turn_cli_password=config.get("VOICE_TURN_CLI_PASSWORD") or None,
            turns_port=port_number("VOICE_TURNS_PORT", config.get("VOICE_TURNS_PORT")),
            public_address=config.get("VOICE_PUBLIC_ADDRESS") or None,
            drop_after=float(config["VOICE_DROP_AFTER"])
            if config.get("VOICE_DROP_AFTER")
            else None,
            tick_ms=tick_ms(config.get("VOICE_TICK_MS")),
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
        if self.tick_ms is not None:
            command += ["--tick-ms", str(self.tick_ms)]
        return command

    @property
    def renew_after(self) -> int:
        """Seconds after which a seated page asks for a fresh login (`voice:ice`): half the
        lifetime, so a login in use never runs out."""
        return max(1, self.turn_ttl // 2)

    def browser_ice_servers(
        self, player: str, now: float | None = None, relay: bool = True
    ) -> list[dict[str, Any]]:
        """The STUN/TURN list for one player's RTCPeerConnection; with VOICE_TURN_SECRET
        each TURN entry carries his own time-limited login instead of a shared password;
        with VOICE_TURNS_PORT it also names its hosts over TLS (`with_tls`). Without `relay`
        (nobody else at the table would hear him) it has no TURN entry."""
        servers = [dict(server) for server in self.ice_servers if relay or not is_turn(server)]
        if self.turns_port:
            for server in filter(is_turn, servers):
                server["urls"] = with_tls(server["urls"], self.turns_port)
        if self.turn_secret:
            when = time.time() if now is None else now
            username, password = turn_credentials(self.turn_secret, player, self.turn_ttl, when)
            for server in filter(is_turn, servers):
                server.update(username=username, credential=password)
        return servers


def port_number(name: str, value: object) -> int | None:
    """A setting that is a TCP port, or None when unset; anything else stops the start with
    the setting's name rather than handing the browsers a URL they cannot use."""
    if value in (None, ""):
        return None
    text = str(value)
    if isinstance(value, bool) or not isinstance(value, int | str) or not text.isdecimal():
        raise ValueError(f"{name} must be a port number (1-65535), not {value!r}")
    if not 0 < int(text) < 65536:
        raise ValueError(f"{name} must be a port number (1-65535), not {value!r}")
    return int(text)


#: The longest tick the SFU takes, ms (rtc/ticks.py MAX_TICK; tests/hosting/test_voice_tick.py
#: checks that they agree: the web side never imports the SFU's code).
MAX_TICK_MS = 20


def tick_ms(value: object) -> float | None:
    """VOICE_TICK_MS: milliseconds from 0 (each datagram read as it comes) to MAX_TICK_MS, or
    None when unset; anything else stops the start with the setting's name."""
    if value in (None, ""):
        return None
    try:
        ms = math.nan if isinstance(value, bool) else float(str(value))
    except ValueError:
        ms = math.nan
    if not 0 <= ms <= MAX_TICK_MS:  # NaN (not a number, or a bool) fails too
        raise ValueError(f"VOICE_TICK_MS must be 0 to {MAX_TICK_MS} milliseconds, not {value!r}")
    return ms


def socket_path(instance: Path) -> Path:
    """The instance folder's socket, or a short temp path when that would be too long."""
    path = instance / SOCKET_NAME
    if len(str(path)) <= MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(str(instance).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"svara-voice-{digest}.sock"
