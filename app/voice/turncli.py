"""Ending a player's TURN relay at coturn when his voice ends (docs/hosting.md «TURN: the
relay is not a way into the house»).

Why its own module: coturn checks a `use-auth-secret` login's expiry only when an allocation
is made. Once made, the session keeps the login's key and grants every Refresh, long after
the login expired (coturn 4.6, tests/hosting/test_turn_revoke.py): a short login bounds a
copied login, not a relay its page keeps refreshing. coturn's admin CLI (`cli-ip`,
`cli-port`, `cli-password` in deploy/turnserver.conf) lists the sessions whose user name
contains a text (`psp`) and cancels one (`cs`): Svara cancels every session of a player's
logins ("expiry:player") when his voice ends, and the relay stops at once.
"""

from __future__ import annotations

import logging
import re
import socket
from urllib.parse import quote

log = logging.getLogger(__name__)

#: Seconds for the whole exchange with coturn's CLI (it answers on its own machine at once).
CLI_TIMEOUT = 5.0
PROMPT = b"> "
PASSWORD_PROMPT = b"Enter password: \r\n"  # again after a wrong one
#: One session in `psp`'s listing: "1) id=001000000000000002, user <1796316665:%D0%98…>:".
SESSION = re.compile(r"id=(\d+), user <\d+:([^>]*)>")


def cli_address(value: str) -> tuple[str, int]:
    """VOICE_TURN_CLI as (host, port): "127.0.0.1:5766", "[::1]:5766"; anything else stops
    the start with the setting's name."""
    host, _, port = value.rpartition(":")
    if not host or not port.isdecimal() or not 0 < int(port) < 65536:
        raise ValueError(f"VOICE_TURN_CLI must be HOST:PORT (coturn's cli-port), not {value!r}")
    return host.strip("[]"), int(port)


class TurnCli:
    """coturn's admin CLI at `address`, logged into with `password` (its `cli-password`)."""

    def __init__(self, address: tuple[str, int], password: str) -> None:
        self.address, self.password = address, password

    def revoke_all(self, players: list[str]) -> None:
        """`revoke` each of `players` (a task of the voice hub's)."""
        for player in players:
            self.revoke(player)

    def revoke(self, player: str) -> int:
        """Cancel every coturn session of `player`'s logins; how many it cancelled. A CLI
        that does not answer is logged, never raised: the voice ends all the same."""
        try:
            return self._revoke(quote(player, safe=""))
        except (OSError, ConnectionError) as failure:
            log.warning("TURN sessions of %r not cancelled: %s", player, failure)
            return 0

    def _revoke(self, user: str) -> int:
        with socket.create_connection(self.address, timeout=CLI_TIMEOUT) as sock:
            read_until(sock, PASSWORD_PROMPT)
            sock.sendall(self.password.encode() + b"\r\n")
            if not read_until(sock, PROMPT, PASSWORD_PROMPT).endswith(PROMPT):
                raise ConnectionError("coturn's CLI refused the password")
            sock.sendall(f"psp :{user}\r\n".encode())
            listing = read_until(sock, PROMPT).decode(errors="replace")
            # `psp` matches a part of the name: "Иван" is in "Иванов" too, so keep his own.
            sessions = [sid for sid, name in SESSION.findall(listing) if name == user]
            for sid in sessions:
                sock.sendall(f"cs {sid}\r\n".encode())
                read_until(sock, PROMPT)
            return len(sessions)


def read_until(sock: socket.socket, *ends: bytes) -> bytes:
    """What the CLI writes up to and with one of `ends` (its prompts), or up to its closing."""
    data = b""
    while not data.endswith(ends):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data
