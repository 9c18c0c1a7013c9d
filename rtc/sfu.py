"""The selective forwarding unit: one room per table, one server peer per participant.

The browser offers its mic plus (seats − 1) receive-only slots and the SFU only answers
(Chrome rejects aiortc's re-offers, docs/architecture.md), asking for Opus in-band FEC. Each
publisher's received Opus packets (passed through as they arrive, never buffered or
decoded: rtc.passthrough) are sent from the socket callback that read each one, in one
compiled call per packet, to the stream of every slot that carries that publisher, as the pure
`Room` says: mic off → no routes from the player, listen off → no routes to them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiortc import RTCPeerConnection, RTCRtpTransceiver, RTCSessionDescription
from aiortc.sdp import SessionDescription

from .gate import GateTrack
from .ice import IceConfig
from .passthrough import (
    Counters,
    Listeners,
    OpusPacket,
    forward_from,
    level_to_amplitude,
    opus_answer,
    watch_levels,
)
from .room import Room, RoomError

#: How often speaking levels are sent (only when they changed).
LEVELS_INTERVAL = 0.2
#: Levels are rounded to this step so that noise does not produce a stream of events.
LEVEL_STEP = 0.05
#: Most receive slots an offer may ask for (a table has at most 8 seats; a bound anyway).
MAX_SLOTS = 15

#: Seconds a levels tick comes later than asked that mean the SFU's loop is behind
#: (overloaded): the received packets wait in the sockets meanwhile, 25 of each publisher
#: in half a second. Logged, at most once per LATE_LOG_INTERVAL.
LATE = 0.5
LATE_LOG_INTERVAL = 10.0
#: The start of the refusal when aioice could bind no UDP port (the web process and the
#: page recognise it: docs/voice-protocol.md).
NO_PORT = "no free UDP port for voice"

#: Longest wait for aiortc's own tasks of a closed peer (they end within ~20 ms: one pacing
#: step of the ICE checks); a bound so that a stuck one cannot hold its table's lock.
TEARDOWN_TIMEOUT = 5.0

Notify = Callable[[dict[str, Any]], None]

logger = logging.getLogger("rtc")


class OfferError(ValueError):
    """An offer the SFU cannot answer (not SDP, no audio, video…)."""


@dataclass(eq=False)
class Peer:
    """The server side of one participant's connection."""

    table: str
    player: str
    pc: RTCPeerConnection
    slot_mids: list[str] = field(default_factory=list)
    gates: list[GateTrack] = field(default_factory=list)
    loudest: int = 127  # lowest dBov since the last levels tick (127 = silence)


@dataclass(frozen=True)
class _Offer:
    """What the browser's offer holds: its mic m-line and its receive-only slots."""

    mic_mid: str | None
    slot_mids: list[str]

    @classmethod
    def parse(cls, sdp: str) -> _Offer:
        try:
            description = SessionDescription.parse(sdp)
        except Exception as exc:  # aiortc raises assorted errors on bad SDP
            raise OfferError(f"not an SDP offer: {exc}") from exc
        mic_mid: str | None = None
        slot_mids: list[str] = []
        for media in description.media:
            if media.kind != "audio":
                raise OfferError(f"only audio is relayed, the offer has {media.kind}")
            if media.direction in ("sendonly", "sendrecv") and mic_mid is None:
                mic_mid = media.rtp.muxId
            elif media.direction == "recvonly":
                slot_mids.append(media.rtp.muxId)
        if mic_mid is None and not slot_mids:
            raise OfferError("the offer has neither a mic nor a receive slot")
        if len(slot_mids) > MAX_SLOTS:
            raise OfferError(f"{len(slot_mids)} receive slots, at most {MAX_SLOTS}")
        return cls(mic_mid, slot_mids)


class Sfu:
    """All voice rooms of one SFU process; `notify` carries events to the web process."""

    def __init__(self, ice: IceConfig, notify: Notify) -> None:
        self.ice = ice
        self.notify = notify
        self.rooms: dict[str, Room] = {}
        self.peers: dict[tuple[str, str], Peer] = {}
        self._sent_levels: dict[str, dict[str, float]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._peers_changed = 0  # counts changes of `peers` (the forwardings' listeners)
        self.forwarded = 0

    # -- requests -----------------------------------------------------------------------

    def join(self, table: str, player: str, *, mic: bool = True, listen: bool = True) -> None:
        """A seated player enters the table's voice (spectators never join)."""
        self.rooms.setdefault(table, Room(table)).join(player, mic=mic, listen=listen)

    async def answer(self, table: str, player: str, sdp: str) -> str:
        """Answer `player`'s offer with a fresh peer (a reconnect replaces the old one)."""
        room = self._room(table)
        room.member(player)
        offer = _Offer.parse(sdp)
        await self._drop_peer(table, player)
        pc = RTCPeerConnection(self.ice.rtc_configuration())
        peer = Peer(table, player, pc)
        try:
            await pc.setRemoteDescription(RTCSessionDescription(sdp, "offer"))
            mic = self._wire(peer, offer)
            await pc.setLocalDescription(await pc.createAnswer())
            if "a=candidate:" not in pc.localDescription.sdp:
                raise OfferError(self._no_port())
        except OfferError as exc:
            await pc.close()
            logger.warning("voice of %r at table %s refused: %s", player, table, exc)
            raise
        except Exception as exc:
            await pc.close()
            raise OfferError(f"cannot answer the offer: {exc}") from exc
        self.peers[(table, player)] = peer
        self._peers_changed += 1
        pc.on("connectionstatechange", lambda: self._on_state(peer))
        changed = room.attach(player, slots=len(offer.slot_mids), publishing=mic)
        self._send_slots(room, changed)
        return opus_answer(pc.localDescription.sdp, sdp)

    def set_mic(self, table: str, player: str, on: bool) -> None:
        """Mic toggle: off forwards nothing of `player`."""
        self._room(table).set_mic(player, on)

    def set_listen(self, table: str, player: str, on: bool) -> None:
        """Listen toggle: off forwards nothing to `player`."""
        self._room(table).set_listen(player, on)

    async def leave(self, table: str, player: str) -> None:
        """`player` stands up, leaves, or is replaced: drop the peer and the membership."""
        room = self.rooms.get(table)
        if room is None:
            return
        await self._drop_peer(table, player)
        self._send_slots(room, room.leave(player))
        if room.empty:
            self._forget(table)

    async def close(self, table: str) -> None:
        """The table closes: every peer of its room goes."""
        room = self.rooms.get(table)
        if room is None:
            return
        for player in list(room.members):
            await self._drop_peer(table, player)
        self._forget(table)

    async def shutdown(self) -> None:
        """Close every room and wait for every task the SFU started."""
        for table in list(self.rooms):
            await self.close(table)
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)

    def stats(self) -> dict[str, int]:
        """Counts that show leaks (rooms, peers, asyncio tasks, threads, open files), the
        packets forwarded into slots since the SFU started, the NACKs sent to publishers,
        the packets sent again to listeners that asked, and those dropped at a full socket."""
        return {
            "rooms": len(self.rooms),
            "peers": len(self.peers),
            "forwarded": self.forwarded,
            "red_received": Counters.red_received,
            "red_sent": Counters.red_sent,
            "red_unwrapped": Counters.red_unwrapped,
            "nacks_sent": Counters.nacks_sent,
            "retransmitted": Counters.retransmitted,
            "send_dropped": Counters.send_dropped,
            "tasks": len(asyncio.all_tasks()),
            "threads": threading.active_count(),
            "fds": len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else -1,
        }

    async def run_levels(self) -> None:
        """Every LEVELS_INTERVAL, send each room's speaking levels if they changed; a tick
        that comes LATE says the SFU is overloaded (logged)."""
        loop = asyncio.get_running_loop()
        logged = -LATE_LOG_INTERVAL
        while True:
            due = loop.time() + LEVELS_INTERVAL
            await asyncio.sleep(LEVELS_INTERVAL)
            now = loop.time()
            if now - due > LATE and now - logged > LATE_LOG_INTERVAL:
                logged = now
                logger.warning(
                    "voice SFU overloaded: its event loop ran %d ms late, "
                    "received voice waits to be forwarded",
                    (now - due) * 1000,
                )
            self.send_levels()

    def send_levels(self) -> None:
        """One levels tick: the loudest level of each publisher since the last tick."""
        for table, room in self.rooms.items():
            levels: dict[str, float] = {}
            for player, member in room.members.items():
                peer = self.peers.get((table, player))
                if peer is None or not member.publishing:
                    continue
                loudness = level_to_amplitude(peer.loudest) if member.mic else 0.0
                levels[player] = round(round(loudness / LEVEL_STEP) * LEVEL_STEP, 2)
                peer.loudest = 127
            if levels != self._sent_levels.get(table, {}):
                self._sent_levels[table] = levels
                self.notify({"event": "levels", "table": table, "levels": levels})

    # -- internals ----------------------------------------------------------------------

    def _room(self, table: str) -> Room:
        room = self.rooms.get(table)
        if room is None:
            raise RoomError(f"no voice room for table {table!r}")
        return room

    def _no_port(self) -> str:
        """Why no candidate could be offered: every port of the range is taken (or none
        of the addresses could be bound); names the setting a host widens."""
        ports = self.ice.ports
        if ports is not None:
            return (
                f"{NO_PORT} in {ports.start}-{ports.stop - 1} (every port is taken): "
                "widen VOICE_PORTS (docs/hosting.md)"
            )
        return f"{NO_PORT}: none could be bound on the offered addresses (VOICE_ADDRESSES)"

    def _forget(self, table: str) -> None:
        self.rooms.pop(table, None)
        self._sent_levels.pop(table, None)

    def _wire(self, peer: Peer, offer: _Offer) -> bool:
        """Point each transceiver at its role; has the peer a mic?"""
        by_mid: dict[str | None, RTCRtpTransceiver] = {t.mid: t for t in peer.pc.getTransceivers()}
        for mid in offer.slot_mids:
            transceiver = by_mid[mid]
            gate = GateTrack()
            transceiver.direction = "sendonly"
            transceiver.sender.replaceTrack(gate)
            peer.slot_mids.append(mid)
            peer.gates.append(gate)
        if offer.mic_mid is None:
            return False
        receiver = by_mid[offer.mic_mid].receiver

        def on_level(dbov: int) -> None:
            peer.loudest = min(peer.loudest, dbov)

        watch_levels(receiver, on_level)
        forward_from(receiver, _Forwarding(self, peer))
        return True

    def _gates(self, table: str, routes: list[tuple[str, int]]) -> list[GateTrack]:
        """The gates of the (listener, slot) pairs that have a peer and such a slot."""
        gates = []
        for listener, slot in routes:
            target = self.peers.get((table, listener))
            if target is not None and slot < len(target.gates):
                gates.append(target.gates[slot])
        return gates

    def _on_state(self, peer: Peer) -> None:
        if self.peers.get((peer.table, peer.player)) is not peer:
            return
        state = peer.pc.connectionState
        if state not in ("failed", "closed"):
            self.notify(
                {"event": "peer", "table": peer.table, "player": peer.player, "state": state}
            )
            return
        # Not asked for (leave, close and a re-offer drop the peer first): ICE failed, its
        # consent checks went unanswered (network lost, browser frozen, this machine too
        # busy to check), or the browser hung up. Told as "failed": the page reconnects.
        reason = (
            "ICE failed"
            if state == "failed"
            else "no answer to ICE consent checks, or the browser hung up"
        )
        logger.warning("voice of %r at table %s dropped: %s", peer.player, peer.table, reason)
        self.notify(
            {
                "event": "peer",
                "table": peer.table,
                "player": peer.player,
                "state": "failed",
                "reason": reason,
            }
        )
        self._spawn(self._drop_if_current(peer))

    async def _drop_if_current(self, peer: Peer) -> None:
        if self.peers.get((peer.table, peer.player)) is peer:
            await self._drop_peer(peer.table, peer.player)

    async def _drop_peer(self, table: str, player: str) -> None:
        """Close `player`'s peer, if any, and free the slots it filled at the others."""
        peer = self.peers.pop((table, player), None)
        if peer is None:
            return
        self._peers_changed += 1
        room = self.rooms.get(table)
        if room is not None and player in room.members:
            self._send_slots(room, room.detach(player))
        await peer.pc.close()
        await _outlived_tasks_end(peer.pc)
        self.notify({"event": "peer", "table": table, "player": player, "state": "closed"})

    def _send_slots(self, room: Room, players: set[str]) -> None:
        """Tell each of `players` (with a peer) which publisher each of its slots carries."""
        for player in sorted(players):
            peer = self.peers.get((room.table, player))
            if peer is None or player not in room.members:
                continue
            carried = room.slot_map(player)
            pairs = zip(peer.slot_mids, carried, strict=True)
            slots = [{"mid": mid, "player": p} for mid, p in pairs]
            self.notify({"event": "slots", "table": room.table, "player": player, "slots": slots})

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


async def _outlived_tasks_end(pc: RTCPeerConnection) -> None:
    """Wait for the tasks aiortc started for `pc` that its `close()` does not await.

    Each set*Description starts `RTCPeerConnection.__connect` unawaited; when a peer is
    closed while ICE is still checking (a racing re-offer, a browser that never answered)
    that task outlives `close()` by one check-pacing step. Awaiting it here makes "closed"
    mean closed: the `peer` event and the leave/close replies come after all of it.
    """
    this = asyncio.current_task()
    outliving = [t for t in asyncio.all_tasks() if t is not this and _runs_for(t, pc)]
    if not outliving:
        return
    _, pending = await asyncio.wait(outliving, timeout=TEARDOWN_TIMEOUT)
    if pending:
        logger.warning("%d aiortc task(s) still running after closing a peer", len(pending))


def _runs_for(task: asyncio.Task[Any], pc: RTCPeerConnection) -> bool:
    """Is `task` a method of `pc` (its frame's `self`)? aiortc keeps no handle to them."""
    frame = getattr(task.get_coro(), "cr_frame", None)
    return frame is not None and frame.f_locals.get("self") is pc


class _Forwarding:
    """Sends each packet of one peer's mic to the slots of those who hear it
    (`Listeners`), called by the mic's receiver as the socket's callback reads the packet
    (`forward_from`): no queue and no task wake-up per packet."""

    __slots__ = (
        "_changed",
        "_listeners",
        "_loop",
        "_peer",
        "_room",
        "_routes",
        "_senders",
        "_sfu",
        "_slots",
    )

    def __init__(self, sfu: Sfu, peer: Peer) -> None:
        self._sfu = sfu
        self._peer = peer
        self._room = sfu.rooms[peer.table]
        self._loop = asyncio.get_running_loop()
        self._routes: list[tuple[str, int]] | None = None
        self._changed = self._senders = -1
        self._listeners = Listeners([])
        self._slots = 0  # the slots forwarded into, a sender started or not (`stats`)

    def __call__(self, packet: OpusPacket) -> None:
        sfu, player = self._sfu, self._peer.player
        routes = self._room.routes(player)
        # The listeners change only with the routes (a new list), the peers or the slots'
        # senders (started, stopped).
        if (
            routes is not self._routes
            or sfu._peers_changed != self._changed
            or GateTrack.changes != self._senders
        ):
            self._routes, self._changed = routes, sfu._peers_changed
            self._senders = GateTrack.changes
            gates = sfu._gates(self._peer.table, routes)
            self._listeners = Listeners([g.stream for g in gates if g.stream is not None])
            self._slots = len(gates)
        self._listeners.send(packet, self._peer, self._loop.time())
        sfu.forwarded += self._slots
