"""The live table runtime over real sockets: decisions per second and their latency.

Run: .venv/bin/python -m benchmarks.bench_tables [--tables N] [--hands H] [--mode eventlet]

Starts `svara serve` on a temporary instance (loopback), opens N `classic` tables with three
players each (python-socketio clients, as in tests/server) and plays H hands at every table
at once, one thread per table, with random legal decisions. Each decision is a full round
trip: `table:act`, the engine, the ledger rows and the hand log committed to SQLite, every
watcher's own `table:state`. Reports the decisions per second (wall), the server's CPU time
per decision (/proc), and the latency from sending a decision to the acting player's ack
and to the last of the three players holding the new state (median and 95th percentile).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from tests.server.conftest import Server
from tests.server.tablekit import choose, fast_server, new_table, seat, whose_turn


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process, all threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def play(server: Server, hands: int, seed: int, acks: list[float], spreads: list[float]) -> int:
    """One table: `hands` hands of three players; returns the decisions made."""
    table = new_table(server, "classic")
    players = seat(server, table, 3, 10 * hands * 100)
    rng, decisions = random.Random(seed), 0
    for _ in range(hands):
        for p in players:
            p.call("table:ready")
        hand_id = players[0].until(lambda s: s["phase"] == "playing" and s["hand"]["id"])
        while True:
            players[0].until(lambda s: s["phase"] != "playing" or s["hand"]["awaiting"])
            if players[0].state["phase"] != "playing" or players[0].hand["id"] != hand_id:
                break
            actor = whose_turn(players)
            sent_version = actor.state["version"]
            start = time.perf_counter()
            reply = actor.act(**choose(actor.hand["legal"], rng))
            acks.append(time.perf_counter() - start)
            assert reply == {"ok": True}, reply
            for p in players:
                p.until(lambda s, v=sent_version: s["version"] > v)
            spreads.append(time.perf_counter() - start)
            decisions += 1
    for p in players:
        p.close()
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--mode", default="eventlet", choices=["eventlet", "threading"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = fast_server(Path(folder), args.mode)
        try:
            acks: list[float] = []
            spreads: list[float] = []
            counts: list[int] = []
            threads = [
                threading.Thread(
                    target=lambda i=i: counts.append(play(server, args.hands, i, acks, spreads))
                )
                for i in range(args.tables)
            ]
            cpu, wall = cpu_seconds(server.process.pid), time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall, cpu = time.perf_counter() - wall, cpu_seconds(server.process.pid) - cpu
        finally:
            server.stop()
    decisions = sum(counts)
    ms = sorted(x * 1000 for x in acks)
    spread = sorted(x * 1000 for x in spreads)
    print(
        json.dumps(
            {
                "mode": args.mode,
                "tables": args.tables,
                "hands": args.tables * args.hands,
                "decisions": decisions,
                "decisions_per_second": round(decisions / wall, 1),
                "server_cpu_ms_per_decision": round(1000 * cpu / decisions, 2),
                "ack_ms_median": round(statistics.median(ms), 1),
                "ack_ms_p95": round(ms[int(0.95 * (len(ms) - 1))], 1),
                "all_states_ms_median": round(statistics.median(spread), 1),
                "all_states_ms_p95": round(spread[int(0.95 * (len(spread) - 1))], 1),
            }
        )
    )


if __name__ == "__main__":
    main()
