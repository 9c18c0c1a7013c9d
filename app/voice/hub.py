"""Each table's voice as the web process keeps it — who is in it, each one's mic and listen
toggles — over the supervised SFU (docs/voice-protocol.md, docs/protocol.md «Voice»).

Why its own module: this is the one record of the voice state (the SFU only applies it,
the pages only draw it). It survives a reconnect and an SFU restart (the new SFU gets it
with the re-join), and the tables read it into their versioned `table:state` (`marks`), so
every change here is a change of the table: `changed(table)` asks for its new state. A
player counts as *in* the voice only once the SFU says his peer is connected, so a voice
that never worked (no microphone, no free port) is never shown to the table.

Nothing here waits for the SFU on behalf of a table: what ends a voice (a seat freed under
the table's lock, «voice:leave», a closed table) is queued and sent by a task of the hub's
own, in order; a later `join` of the same table waits until that table's queue is sent.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .client import (
    REQUEST_TIMEOUT,
    SfuClient,
    Sleep,
    Spawn,
    VoiceError,
    VoiceUnavailable,
    default_spawn,
)
from .settings import VoiceSettings, announce, is_turn
from .supervisor import Supervisor
from .turncli import TurnCli

log = logging.getLogger(__name__)

#: Delivers a voice event: (event name, table, player or None for the whole table, payload).
Deliver = Callable[[str, int, str | None, dict[str, Any]], None]
#: Told the id of a table whose voice marks changed (its `table:state` is sent again).
Changed = Callable[[int], None]
#: Seconds after which a page whose relay was withheld (nobody else there) asks again.
ASK_AGAIN = 5


@dataclass
class VoiceMember:
    """A seated player's voice: his toggles, and `connected` while the SFU has his peer
    connected — from its first `connected` until it is dropped (`failed`) or the SFU
    restarts; only then does the table see him in the voice."""

    mic: bool = True
    listen: bool = True
    connected: bool = False

    def mark(self) -> dict[str, bool]:
        """What a seat's `voice` shows (docs/protocol.md «table:state»)."""
        return {"in": self.connected, "mic": self.mic, "listen": self.listen}


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


def _unchanged(table: int) -> None:
    """The `changed` of a hub nobody draws (tests of the SFU's side alone)."""


class VoiceHub:
    """The voice of every table of this process, over the supervised SFU.

    The Socket.IO layer calls these methods for seated players only (spectators never
    publish nor receive) and sends the events `deliver` gets (docs/voice-protocol.md);
    `changed` is called, outside the hub's lock, after every change of a table's marks;
    `spawn` starts the task that sends the queued requests.
    """

    def __init__(
        self,
        settings: VoiceSettings,
        deliver: Deliver,
        changed: Changed = _unchanged,
        spawn: Spawn = default_spawn,
    ) -> None:
        self.settings = settings
        self._deliver = deliver
        self._changed = changed
        self._spawn = spawn
        self._tables: dict[int, dict[str, VoiceMember]] = {}  # table → player → voice
        self._lock = threading.Lock()
        self._sent = threading.Condition(self._lock)  # notified as the outbox empties
        self._outbox: deque[tuple[str, int, dict[str, Any]]] = deque()
        self._queued: Counter[int] = Counter()  # table → its requests not yet sent
        self._sending = False  # a task sends the outbox
        self._held: set[tuple[int, str]] = set()  # microphones the host muted (`hold`)
        self.supervisor: Supervisor | None = None
        cli, password = settings.turn_cli, settings.turn_cli_password
        self._turn = TurnCli(cli, password) if cli and password else None

    def attach(self, supervisor: Supervisor) -> None:
        """Use `supervisor`'s SFU (built with `self.on_sfu_event` and `self.on_restart`)."""
        self.supervisor = supervisor

    def _sfu(self) -> SfuClient:
        if self.supervisor is None:
            raise VoiceUnavailable("voice is not enabled on this server")
        return self.supervisor.client

    # -- what the tables read ------------------------------------------------------------

    def marks(self, table: int) -> dict[str, dict[str, bool]]:
        """Each voice member's `{"in", "mic", "listen"}` (read into the table's snapshot)."""
        with self._lock:
            return {p: m.mark() for p, m in self._tables.get(table, {}).items()}

    # -- calls from the Socket.IO layer -------------------------------------------------

    def join(self, table: int, player: str, seats: int, relay: bool = False) -> dict[str, Any]:
        """A seated player's browser starts voice; returns what it needs to offer (TURN
        only with `relay`, see `ice`). Nothing is shown to the table yet: he is in once his
        peer is connected (`on_sfu_event`)."""
        with self._lock:
            member = self._tables.setdefault(table, {}).setdefault(player, VoiceMember())
            if (table, player) in self._held:
                member.mic = False
        self.sent(table)  # his last voice's `leave` first, or the SFU would end this one
        self._sfu_join(table, player, member)
        return {
            "slots": seats - 1,
            **self.ice(player, relay),
            "mic": member.mic,
            "listen": member.listen,
        }

    def ice(self, player: str, relay: bool) -> dict[str, Any]:
        """His ICE servers, with a TURN login only when `relay` (another person at the
        table hears him: a relay for nobody is only a way into the host's network), and
        when to ask again (`voice:ice`): before that login runs out, or soon when a relay
        was withheld, so that his page gets one shortly after someone sits down."""
        withheld = not relay and any(map(is_turn, self.settings.ice_servers))
        return {
            "iceServers": self.settings.browser_ice_servers(player, relay=relay),
            "renew": ASK_AGAIN if withheld else self.settings.renew_after,
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
        """Mic toggle (the table shows the muted mark). Kept even while the SFU restarts:
        the new one gets it with the re-join. Refused while the host holds it muted."""
        if on and (table, player) in self._held:
            raise VoiceError("the host muted your microphone at this table: ask to speak")
        self._toggle("mic", table, player, on)

    def hold(self, table: int, player: str, held: bool) -> None:
        """The host muted his microphone at this table (app/tables/chair.py), or gave it
        back: while held, the SFU forwards nothing of his (his `mic` off there, whatever his
        page sends) and `set_mic` refuses to switch it on; given back, it stays off until
        he switches it on. Called under the table's lock: queued, it never waits."""
        with self._lock:
            if not held:
                self._held.discard((table, player))
                return
            self._held.add((table, player))
            member = self._tables.get(table, {}).get(player)
            if member is not None:
                member.mic = False
                self._queue("mic", table, player=player, on=False)

    def set_listen(self, table: int, player: str, on: bool) -> None:
        """Listen toggle (the table shows the not-listening mark)."""
        self._toggle("listen", table, player, on)

    def _toggle(self, op: str, table: int, player: str, on: bool) -> None:
        member = self._member(table, player)
        with self._lock:
            changed = getattr(member, op) != on
            setattr(member, op, on)
        if changed:
            self._changed(table)
        with contextlib.suppress(VoiceUnavailable):
            self._sfu().request(op, table=str(table), player=player, on=on)

    def leave(self, table: int, player: str) -> None:
        """«voice:leave»: the player's voice ends and its toggles are forgotten."""
        if self._drop(table, player):
            self._changed(table)

    def forget(self, table: int, player: str) -> None:
        """His seat was freed: his voice ends, shown by the table's own change (so
        `changed` is not called). Called under the table's lock: it never waits."""
        self._drop(table, player)

    def _drop(self, table: int, player: str) -> bool:
        """The player's voice ends and its toggles are forgotten; False when he had none."""
        with self._lock:
            members = self._tables.get(table, {})
            if members.pop(player, None) is None:
                return False
            if not members:
                del self._tables[table]
            self._queue("leave", table, player=player)
            self._end_relays([player])
        return True

    def close(self, table: int) -> None:
        """The table closes: every peer of its room goes."""
        with self._lock:
            gone = list(self._tables.pop(table, {}))
            self._held = {held for held in self._held if held[0] != table}
            self._queue("close", table)
            self._end_relays(gone)

    def _end_relays(self, players: list[str]) -> None:
        """Cancel the coturn sessions of those of `players` whose voice ended everywhere
        (under the hub's lock; a task of its own talks to coturn): coturn grants a relay's
        refreshes past its login's expiry, so the relay stops only so (`turncli`)."""
        ended = [p for p in players if not any(p in m for m in self._tables.values())]
        if self._turn is not None and ended:
            self._spawn(self._turn.revoke_all, ended)

    def sent(self, table: int, within: float = REQUEST_TIMEOUT) -> bool:
        """Wait until the requests queued for `table` were sent (or `within` passed)."""
        with self._lock:
            return self._sent.wait_for(lambda: not self._queued[table], timeout=within)

    def _queue(self, op: str, table: int, **fields: Any) -> None:
        """Send `op` later, after the requests queued before it (under the hub's lock)."""
        if self.supervisor is None:  # voice is off: there is no SFU to tell
            return
        self._outbox.append((op, table, fields))
        self._queued[table] += 1
        if not self._sending:
            self._sending = True
            self._spawn(self._send_queued)

    def _send_queued(self) -> None:
        """The outbox's task: each request in order, refused or unanswered ones dropped
        (an SFU that restarts has no rooms left to end)."""
        while True:
            with self._lock:
                if not self._outbox:
                    self._sending = False
                    return
                op, table, fields = self._outbox[0]
            try:
                self._sfu().request(op, table=str(table), **fields)
            except (VoiceUnavailable, VoiceError) as failure:
                log.info("voice %s at table %s not sent: %s", op, table, failure)
            except Exception:  # one broken request must not stop the ones after it
                log.exception("voice %s at table %s failed", op, table)
            finally:
                with self._lock:
                    self._outbox.popleft()
                    self._queued[table] -= 1
                    if not self._queued[table]:
                        del self._queued[table]
                    self._sent.notify_all()

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
        """A new SFU has no rooms: re-join every member (nobody is connected until his page
        has offered again), then ask the browsers to re-offer."""
        with self._lock:
            tables = {t: dict(members) for t, members in self._tables.items()}
            for members in tables.values():
                for member in members.values():
                    member.connected = False
        for table, members in tables.items():
            self._changed(table)
            for player, member in members.items():
                with contextlib.suppress(VoiceUnavailable, VoiceError):
                    self._sfu_join(table, player, member)
            self._deliver("voice:restart", table, None, {"table": table})

    def _follow_peer(self, table: int, player: str, state: str) -> None:
        """`connected` puts the player in the table's voice; a dropped connection (`failed`)
        takes him out until his page has connected again: the others see him come, leave
        and come back (docs/protocol.md «voice:peer»)."""
        if state not in ("failed", "connected"):
            return
        with self._lock:
            member = self._tables.get(table, {}).get(player)
            if member is None or member.connected == (state == "connected"):
                return
            member.connected = state == "connected"
        if not member.connected:
            log.warning("voice of %r at table %s dropped; waiting for his page", player, table)
        self._changed(table)

    # -- helpers ------------------------------------------------------------------------

    def _sfu_join(self, table: int, player: str, member: VoiceMember) -> None:
        self._sfu().request(
            "join", table=str(table), player=player, mic=member.mic, listen=member.listen
        )

    def _member(self, table: int, player: str) -> VoiceMember:
        with self._lock:
            member = self._tables.get(table, {}).get(player)
        if member is None:
            raise VoiceError(f"{player!r} has not joined the voice of table {table}")
        return member


def start_hub(
    config: dict[str, Any],
    instance: Path,
    deliver: Deliver,
    spawn: Spawn,
    sleep: Sleep,
    changed: Changed = _unchanged,
) -> VoiceHub:
    """Create the hub and start its supervised SFU; `svara serve` calls this once.

    With VOICE = False in the config the hub answers every call with VoiceUnavailable.
    """
    hub = VoiceHub(VoiceSettings.from_config(config, instance), deliver, changed, spawn)
    if config.get("VOICE", True):
        supervisor = Supervisor(
            hub.settings, hub.on_sfu_event, hub.on_restart, spawn=spawn, sleep=sleep
        )
        hub.attach(supervisor)
        supervisor.start()
    return hub
