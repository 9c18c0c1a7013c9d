"""The table's voice chat (C-8.3, docs/protocol.md «Voice») wired to the live tables: who may talk,
where the voice events go, and when a player's voice ends.

`app/voice.py` runs the SFU and keeps each table's voice state; this module is its one
door to the runtime. Only a player seated at the table may use `voice:*`: a spectator is
refused, so he never publishes nor receives table voice (bots have no socket and never
join). Voice events for one player go to his sockets watching the table; events for the
whole table (who talks, muted icons, a restart) go to the seated players' sockets. A seat
freed for any reason (standing up, «Выйти», a kick or ban, offline or idle, S-1.7, C-1.7)
ends that player's voice, and a closed table ends its room.

The registry tells its `on_seats_changed` hooks whenever the seats or the queue change, and
every freed seat changes them (seated + queued drops), so the voice chat checks its members
there, under the table's lock, in order with the seat changes themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask

from app import voice
from app.extensions import socketio

from . import EXTENSION as TABLES
from .registry import Tables

EXTENSION = "svara.voice"


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

    def seats_of(table: int, name: str) -> int | None:
        live = tables.find(table)
        if live is None or live.member(name) is None:
            return None
        return live.size

    hub = voice.start(
        app.config,
        Path(app.instance_path),
        deliver,
        spawn=socketio.start_background_task,
        sleep=socketio.sleep,
    )
    voice.register_events(hub, seats_of)

    def seats_changed(table: int) -> None:
        """After the lobby's update: whoever has voice here but no seat any more leaves it."""
        live = tables.find(table)
        seated = {m.name for m in live.members()} if live is not None else set()
        for name in hub.members(table):
            if name not in seated:
                hub.leave(table, name)

    tables.on_seats_changed.append(seats_changed)
    tables.on_close.append(hub.close)
    app.extensions[EXTENSION] = hub


def stop(app: Flask) -> None:
    """End the SFU (the server is shutting down); its rooms go with it."""
    hub: voice.VoiceHub | None = app.extensions.get(EXTENSION)
    if hub is not None and hub.supervisor is not None:
        hub.supervisor.stop()
