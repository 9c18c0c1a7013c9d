"""Sending a table's new state to its watchers: `LiveTable._changed` → Socket.IO packets/s.

Run: .venv/bin/python -m benchmarks.bench_state [--hands N] [--repeats R]

One `classic` table of 8 seated players, each watching on his own socket, plays random
hands in-process (no database, no network). After every action the benchmark times
`_changed` — every watcher's own `table:state` — with `emit` doing what python-socketio's
`Manager.emit` does for one recipient: build the Socket.IO packet and encode it, and wrap
it in an Engine.IO message. Rows, each the median of R runs over the same hands:
- `viewer-alone`: each watcher's state built by `state_for` alone (the way `_changed` did
  it before:  the shared parts once per viewer), with the default and the wire packet;
- `changed`, by packet class: `default` (python-socketio's `Packet`: a binary scan of every
  payload, stdlib json), `text` (no scan, stdlib json) and `wire` (app/wire.py's
  `WirePacket`, the server's: no scan, orjson).
- `changed` through an in-process Flask-SocketIO server (8 clients connected to its
  client manager, app/rooms.py's; its Engine.IO encoding each message as the socket's writer
  would, sending nothing): `emit` (Flask-SocketIO's `socketio.emit(…, to=sid)`, the way the
  tables sent before) and `send_to` (app/rooms.py's `sender`, the server's now).
The figure is table:state packets encoded per second of CPU, and the ratio to the first row.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engineio import packet as eio_packet
from flask import Flask
from flask_socketio import SocketIO
from socketio import packet

from app.chat import Chat
from app.engine.games import SCORERS, get_variant
from app.engine.hand import Event, Seat
from app.engine.policies.simple import RandomBot
from app.engine.simulate import seeded_deals
from app.models import Database
from app.rooms import IndexedManager, sender
from app.tables.model import Member, Person
from app.tables.runtime import LiveTable, Services
from app.tables.scheduler import Scheduler
from app.tables.store import TableStore
from app.wire import WirePacket

SEATS = 8


class TextPacket(WirePacket):
    """`WirePacket` with the standard library's json: what skipping the scan alone gives."""

    json = json


PACKETS: dict[str, type[packet.Packet]] = {
    "default": packet.Packet,
    "text": TextPacket,
    "wire": WirePacket,
}


class Wire:
    """The Socket.IO side of `emit(event, data, to=sid)`: one encoded message per call."""

    def __init__(self, packet_class: type[packet.Packet]):
        self.packet_class = packet_class
        self.sent = 0

    def emit(self, event: str, data: dict[str, Any], to: str) -> None:
        pkt = self.packet_class(packet.EVENT, namespace="/", data=[event, data])
        eio_packet.Packet(eio_packet.MESSAGE, pkt.encode()).encode()
        self.sent += 1


class Served(Wire):
    """`emit` by a Socket.IO server in-process: Flask-SocketIO's own, or app/rooms.py's
    `sender` (`direct`); each client's Engine.IO message encoded, as its writer would."""

    def __init__(self, direct: bool):
        super().__init__(WirePacket)
        socketio = SocketIO(
            Flask(__name__),
            async_mode="threading",
            client_manager=IndexedManager(),
            serializer=WirePacket,
        )
        server = socketio.server
        server.eio.send_packet = lambda eio_sid, message: message.encode()
        self.sids = {
            f"sid{seat}": server.manager.connect(f"eio{seat}", "/") for seat in range(SEATS)
        }
        self.send = sender(socketio) if direct else socketio.emit

    def emit(self, event: str, data: dict[str, Any], to: str) -> None:
        self.send(event, data, to=self.sids[to])
        self.sent += 1


WIRES: dict[str, Callable[[], Wire]] = {
    **{name: (lambda cls=cls: Wire(cls)) for name, cls in PACKETS.items()},
    "emit": lambda: Served(direct=False),
    "send_to": lambda: Served(direct=True),
}


def table(folder: Path, wire: Wire) -> LiveTable:
    """A live table with 8 seated players watching, on a database it never touches."""
    db = Database(f"sqlite:///{folder / 'unused.db'}")
    services = Services(
        store=TableStore(db),
        scheduler=Scheduler(None),
        emit=wire.emit,
        chat=lambda table_id: Chat(50, 200, 5, 10.0, db, table_id),
        seats_changed=lambda table_id: None,
    )
    live = LiveTable(1, "Стол у окна", get_variant("classic"), services)
    for seat in range(SEATS):
        person = Person(seat + 1, f"Игрок{seat + 1}")
        live.seating.seats[seat] = Member(person, seat)
        live.watching.add(f"sid{seat}", person, None, seated=True)
        live.seating.show(person.name, 100_000)
    return live


def run(hands: int, seed: int, changed: Callable[[LiveTable, list[Event]], None], wire: Wire):
    """Play `hands` hands; returns the CPU seconds spent sending states and packets sent."""
    rng = random.Random(seed)
    bots = {f"Игрок{i + 1}": RandomBot(rng, timeout_rate=0.0) for i in range(SEATS)}
    deck = SCORERS["classic"].deck
    spent = 0.0
    with tempfile.TemporaryDirectory() as folder:
        live = table(Path(folder), wire)
        cls = live.hand_cls
        for h in range(hands):
            seats = [Seat(m.name, 100_000) for m in live.seating.members()]
            play = live.play
            play.hand = cls(live.variant, seats, seats[h % SEATS].name, seeded_deals(deck, h))
            play.hand_id, play.actions = h + 1, []
            events = list(play.hand.events)
            while True:
                started = time.process_time()
                changed(live, events)
                spent += time.process_time() - started
                hand = play.hand
                if hand.finished:
                    break
                waiting = hand.awaiting()
                player = waiting[0] if len(waiting) == 1 else rng.choice(waiting)
                action = bots[player].choose(player, hand.legal(player), None)
                events = hand.act(action)
                play.actions.append(action)
    return spent, wire.sent


def viewer_alone(live: LiveTable, events: list[Event]) -> None:
    """The old way: every distinct viewer's whole state built on its own."""
    live.version += 1
    states: dict[str, dict[str, Any]] = {}
    for sid, person in live.watching.items():
        if person.name not in states:
            states[person.name] = live.state_for(person.name, events)
        live.watching.send(sid, "table:state", states[person.name])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = [("viewer-alone", "default", viewer_alone), ("viewer-alone", "wire", viewer_alone)]
    rows += [("changed", name, LiveTable._changed) for name in WIRES]
    base = None
    for how, packet_name, changed in rows:
        rates, sent = [], 0
        for seed in range(args.repeats):
            wire = WIRES[packet_name]()
            spent, sent = run(args.hands, seed, changed, wire)
            rates.append(sent / spent)
        rate = statistics.median(rates)
        base = base or rate
        print(
            json.dumps(
                {
                    "state": how,
                    "packet": packet_name,
                    "states_sent": sent,
                    "packets_per_cpu_s": round(rate),
                    "ratio": round(rate / base, 2),
                }
            )
        )


if __name__ == "__main__":
    main()
