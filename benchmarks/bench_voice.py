"""SFU CPU per forwarded audio stream, and how many full 8-player tables one core carries.

Run: .venv/bin/python -m benchmarks.bench_voice [--tables N] [--seconds S] [--repeats R]

Starts the real SFU process (`python -m rtc`, loopback only) and, in this process, Python
aiortc participants that behave like browsers: each offers a mic plus (seats − 1)
receive-only slots. To keep the load generator cheap on a 2-core machine the mics replay
pre-encoded Opus and the participants do not decode what they receive (rtc.passthrough).
For each configuration (tables of 8, mics on or all muted at the SFU) the SFU's CPU time
(/proc, all its threads) is measured over S seconds after a warm-up; the median of R runs
is kept. Muted tables cost only the connections (every mic still arrives at the SFU and
is dropped there); the difference with mics on, per forwarded stream, is the forwarding
cost. Prints one JSON line per configuration, then the derived figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.voice.supervisor import end_sfu
from rtc import passthrough
from rtc.ice import offer_addresses
from tests.voicekit import EncodedToneTrack, Participant, SfuConnection

WARMUP = 3.0
PACKETS_PER_SECOND = 50  # 20 ms Opus frames


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process, all threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def running_sfu(folder: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """The SFU process (loopback only) and its socket; stopped on every path."""
    path = folder / "voice.sock"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rtc",
            "--socket",
            str(path),
            "--address",
            "127.0.0.1",
            "--watch-stdin",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        yield process, path
    finally:
        end_sfu(process, timeout=30)


async def measure(
    socket: Path, pid: int, players: int, tables: int, muted: bool, seconds: float
) -> dict:
    """One run: seat `tables` × `players` (mics muted at the SFU or not), measure the SFU."""
    conn = await SfuConnection.open(socket)
    people: list[Participant] = []
    try:
        for table in range(tables):
            for seat in range(players):
                player = f"p{seat}"
                await conn.request("join", table=str(table), player=player, mic=not muted)
                participant = Participant(slots=players - 1, mic=EncodedToneTrack())
                reply = await conn.request(
                    "offer", table=str(table), player=player, sdp=await participant.offer()
                )
                await participant.accept(reply["sdp"])
                people.append(participant)
        await asyncio.sleep(WARMUP)
        forwarded0 = (await conn.request("stats"))["forwarded"]
        received0 = sum(c.frames for p in people for c in p.received.values())
        cpu0, wall0, own0 = cpu_seconds(pid), time.monotonic(), time.process_time()
        await asyncio.sleep(seconds)
        cpu1, wall1, own1 = cpu_seconds(pid), time.monotonic(), time.process_time()
        forwarded = (await conn.request("stats"))["forwarded"] - forwarded0
        received = sum(c.frames for p in people for c in p.received.values()) - received0
    finally:
        for participant in people:
            await participant.close()
        for table in range(tables):
            await conn.request("close", table=str(table))
        await conn.close()
    wall = wall1 - wall0
    streams = 0 if muted else players * (players - 1) * tables
    expected = max(streams, 1) * PACKETS_PER_SECOND * wall
    return {
        "players": players,
        "tables": tables,
        "muted": muted,
        "connections": players * tables,
        "streams": streams,
        "sfu_core_share": (cpu1 - cpu0) / wall,
        "clients_core_share": (own1 - own0) / wall,
        "forwarded_share": forwarded / expected,
        # CPU per packet sent out: comparable even when a busy machine slows the clients
        "sfu_us_per_forwarded": (cpu1 - cpu0) / forwarded * 1e6 if forwarded else 0.0,
        "received_share": received / expected,
    }


async def run(args: argparse.Namespace) -> None:
    offer_addresses(["127.0.0.1"])
    passthrough.install()  # the load generator counts packets, it does not decode
    configs = [(8, t, muted) for t in range(1, args.tables + 1) for muted in (True, False)]
    rows = []
    with tempfile.TemporaryDirectory() as folder, running_sfu(Path(folder)) as (process, socket):
        for players, tables, muted in configs:
            runs = [
                await measure(socket, process.pid, players, tables, muted, args.seconds)
                for _ in range(args.repeats)
            ]
            row = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            row["muted"] = muted
            rows.append(row)
            print(
                json.dumps({k: v if isinstance(v, bool) else round(v, 4) for k, v in row.items()}),
                flush=True,
            )
    muted_rows = [r for r in rows if r["muted"]]
    talking_rows = [r for r in rows if not r["muted"]]
    per_connection = statistics.median(r["sfu_core_share"] / r["connections"] for r in muted_rows)
    per_stream = statistics.median(
        (on["sfu_core_share"] - off["sfu_core_share"]) / on["streams"]
        for on, off in zip(talking_rows, muted_rows, strict=True)
    )
    table_cost = statistics.median(r["sfu_core_share"] / r["tables"] for r in talking_rows)
    print(
        json.dumps(
            {
                "per_connection_core_share": round(per_connection, 5),
                "per_stream_core_share": round(per_stream, 5),
                "full_8_player_table_core_share": round(table_cost, 4),
                "full_8_player_tables_per_core": round(1 / table_cost, 1),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=3, help="largest number of 8-seat tables")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window per run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.tables < 1 or args.tables > 6:
        parser.error("--tables must be 1..6 (bounded: a 2-core machine)")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
