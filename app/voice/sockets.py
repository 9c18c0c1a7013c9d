"""The table's voice chat (C-8.3, docs/protocol.md «Voice») on Socket.IO and wired to the live
tables: who may talk, where the voice events go, what the tables show, when a voice ends.

Why its own module: it is the voice's one door to the rest of the web process. Only a
player seated at the table may use `voice:*`: a spectator is refused, so he never publishes
nor receives table voice (bots have no socket and never join). Events for one player go to
his sockets watching the table; events for the whole table (who speaks, a restart) go to
the seated players' sockets. Who is in the voice and the toggles are not events: the table
runtime reads them from the hub into each seat of its versioned `table:state` (`Hooks.voice`,
shown to the seated only), and every change of them is a change of the table. The runtime's
`seat_freed` hook ends the voice of a player whose seat was freed for any reason (standing
up, «Выйти», a kick or ban, offline or idle, S-1.7, C-1.7) in that same change; its
`closed` hook ends the room of a closed table.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask

from app import protocol
from app.extensions import socketio
from app.tables import EXTENSION as TABLES
from app.tables.registry import Tables

from .client import VoiceError, VoiceUnavailable
from .hub import VoiceHub, start_hub

EXTENSION = "svara.voice"

#: The table's seat count if `name` is seated at `table`, else None (spectator, stranger).
SeatsOf = Callable[[int, str], int | None]
#: Whether another person (not a bot, not a watcher) seated at `table` hears `name`.
HeardBy = Callable[[int, str], bool]


def register_events(
    hub: VoiceHub, seats_of: SeatsOf, heard: HeardBy, on: Callable[..., None] | None = None
) -> None:
    """Register the `voice:*` Socket.IO events (docs/protocol.md «Voice»).

    `on` is `app.protocol.on` (checked connection and payload, handler gets the player);
    each handler refuses anyone not seated at the table, and turns an SFU refusal or
    outage into a `ProtocolError` (an `error` event and a failed ack). A TURN login goes
    only to a seated player whom another person hears (`heard`), at `voice:join` and at
    each `voice:ice` his page sends to renew it.
    """
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
        seated(lambda t, name, seats, p: {"ok": True, **hub.join(t, name, seats, heard(t, name))}),
        required=table,
    )
    register(
        "voice:ice",
        seated(lambda t, name, seats, p: {"ok": True, **hub.ice(name, heard(t, name))}),
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


def start(app: Flask) -> None:
    """Start the voice chat of the serving process (once, after `tables.start`): the
    supervised SFU, the `voice:*` events, and the runtime's hooks. `stop` ends it."""
    tables: Tables = app.extensions[TABLES]

    def deliver(event: str, table: int, player: str | None, payload: dict[str, Any]) -> None:
        """To `player`'s sockets at the table, or (None) to every seated player's."""
        live = tables.find(table)
        if live is None:  # closed meanwhile: nobody to tell
            return
        for sid in live.audience(player):
            tables.services.emit(event, payload, to=sid)

    def changed(table: int) -> None:
        """A new version of the table, in a task of its own: the SFU's reader calls this
        too, and must never wait for a table's lock (that table may be waiting for the
        SFU's reply to a `leave`)."""
        live = tables.find(table)
        if live is not None:
            socketio.start_background_task(live.voice_changed)

    def seats_of(table: int, name: str) -> int | None:
        live = tables.find(table)
        if live is None or live.member(name) is None:
            return None
        return int(live.variant["seats"])

    def heard(table: int, name: str) -> bool:
        """Another seated player is a person with a page open at the table: not a bot
        (served in-process, app/bots/), not a watcher, not himself."""
        live = tables.find(table)
        if live is None:
            return False
        snap = live.snapshot()
        seated = {s.name for s in snap.seats if s is not None} - {name} - set(snap.bots)
        return bool(seated & snap.connected)

    hub = start_hub(
        app.config,
        Path(app.instance_path),
        deliver,
        spawn=socketio.start_background_task,
        sleep=socketio.sleep,
        changed=changed,
    )
    register_events(hub, seats_of, heard)
    hooks = tables.hooks
    hooks.voice = hub.marks
    hooks.seat_freed.append(hub.forget)
    hooks.muted.append(hub.hold)
    hooks.closed.append(hub.close)
    app.extensions[EXTENSION] = hub


def stop(app: Flask) -> None:
    """End the SFU (the server is shutting down); its rooms go with it."""
    hub: VoiceHub | None = app.extensions.get(EXTENSION)
    if hub is not None and hub.supervisor is not None:
        hub.supervisor.stop()
