"""The Socket.IO client manager: what a disconnect costs as the players grow.

Run: .venv/bin/python -m benchmarks.bench_rooms [--players 500 1000 2000 4000] [--repeats 5]

N clients connected to one namespace, each in its own room and in its table's room (8 a
table, as `svara serve` holds them); then a tenth of them disconnect, one by one, and the
figure is the CPU time per disconnect (median of `--repeats`), python-socketio's own manager
against app/rooms.py's. CPU time of this one process: valid on a busy machine.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from types import SimpleNamespace

import socketio

from app.rooms import IndexedManager


def per_disconnect(kind: type[socketio.Manager], players: int) -> float:
    """CPU seconds per disconnect with `players` connected."""
    manager = kind()
    ids = itertools.count(1)
    manager.server = SimpleNamespace(eio=SimpleNamespace(generate_id=lambda: str(next(ids))))
    sids = [manager.connect(f"eio-{i}", "/") for i in range(players)]
    for i, sid in enumerate(sids):
        manager.enter_room(sid, "/", ("table", i // 8))
    leaving = sids[::10]
    start = time.process_time()
    for sid in leaving:
        manager.disconnect(sid, "/")
    return (time.process_time() - start) / len(leaving)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for players in args.players:
        row: dict[str, object] = {"players": players}
        for name, kind in (("python-socketio", socketio.Manager), ("indexed", IndexedManager)):
            runs = [per_disconnect(kind, players) for _ in range(args.repeats)]
            row[f"{name}_us"] = round(statistics.median(runs) * 1e6, 1)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
