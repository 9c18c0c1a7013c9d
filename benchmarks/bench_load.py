"""Server load: N full classic tables of bots on one `svara serve` process (eventlet).

Run: .venv/bin/python -m benchmarks.bench_load [--tables 10 50 125] [--seats 8]
     [--pace 2 0] [--seconds 60] [--warmup 0] [--workers 2] [--profile DIR] [--soak SECONDS]
     [--pin]

For each N and each pace a fresh server on a fresh instance folder (loopback, any free
port) gets N tables of `--seats` bots (`benchmarks.loadgen`); after every bot is connected
and seated they play for `--warmup` seconds untimed (every table starts at once: a burst of
«Готов» people would not make together), then `--seconds` timed. `--pace 2` thinks 1–3 s
before each decision (a person); `--pace 0` answers at once (full speed). Prints one JSON
line per run: action → update latency p50/p95/p99 at the other seats, actions/s, and the
server's mean CPU (% of one core), peak RSS and open file descriptors, and `stop_s`: the
seconds from the bots' leaving (all at once) to the server's exit after its SIGTERM, which
is how long such a crowd leaving holds it. `--profile DIR`
records the server with py-spy during each run's timed play — not the connecting, the
warm-up nor the disconnects — without pausing it (`--nonblocking`; raw stacks per run,
DIR/load-N-pace.txt).

`--pin`: the server on the first CPU this process may use, the load generator (its workers,
this process, py-spy) on the others, so that the two never take each other's core: what
the p99 owes to sharing the machine with the generator is the difference from a run
without it (docs/performance.md).

`--soak SECONDS`: one run (the first `--tables` and `--pace`) of that length instead, which
prints, minute by minute, the server's RSS per connected player, its CPU and the p99 and
longest of the latencies measured, then the summary with the drift (the first third of
the samples against the last third); it stops by itself.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from .loadgen import by_minute, drift, load_server, prepare, run_tables, sqlite_url

PY_SPY = str(Path(sys.executable).with_name("py-spy"))


def pin(pid: int, cpus: set[int]) -> None:
    """Every thread of process `pid` on `cpus` (threads it starts later inherit it)."""
    for task in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(task), cpus)


def split_cpus() -> tuple[set[int], set[int]]:
    """The server's CPU and the load generator's (`--pin`)."""
    first, *rest = sorted(os.sched_getaffinity(0))
    return {first}, set(rest)


@contextmanager
def py_spy(pid: int, graph: Path) -> Iterator[None]:
    """py-spy records process `pid` into `graph` while the block runs."""
    spy = subprocess.Popen(
        [PY_SPY, "record", "--nonblocking", "--format", "raw", "--rate", "100",
         "--output", str(graph), "--pid", str(pid)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield
    finally:  # py-spy writes its record when interrupted
        spy.send_signal(signal.SIGINT)
        spy.wait(timeout=120)


def one_run(
    tables: int,
    seats: int,
    pace: float,
    seconds: float,
    workers: int,
    profile: Path | None,
    soak: bool = False,
    warmup: float = 0.0,
    pinned: bool = False,
) -> dict[str, object]:
    everything = os.sched_getaffinity(0)
    try:
        with tempfile.TemporaryDirectory(prefix="svara-load-") as folder:
            instance = Path(folder)
            with load_server(instance) as server:
                if pinned:
                    serving, generating = split_cpus()
                    pin(server.process.pid, serving)
                    os.sched_setaffinity(0, generating)  # the workers spawned later inherit it
                seatings = prepare(sqlite_url(instance), instance, tables, seats)
                during = None
                if profile is not None:
                    profile.mkdir(parents=True, exist_ok=True)
                    graph = profile / f"load-{tables}-{pace:g}.txt"
                    during = partial(py_spy, server.process.pid, graph)
                result = run_tables(
                    server.url,
                    server.process.pid,
                    seatings,
                    pace,
                    seconds,
                    workers=workers,
                    warmup=warmup,
                    during=during,
                )
                left = time.monotonic()  # every bot has closed its socket
    finally:
        os.sched_setaffinity(0, everything)  # the next run splits them again
    stop = {"stop_s": round(time.monotonic() - left, 2), "pinned": pinned}
    if not soak:
        return {**result.summary(), **stop}
    for minute in by_minute(result):
        print(json.dumps(minute), flush=True)
    drifted = {k: round(v, 1) for k, v in drift(result.samples).items()}
    return {**result.summary(), **stop, **drifted}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[10, 50, 125])
    parser.add_argument("--seats", type=int, default=8)
    parser.add_argument("--pace", type=float, nargs="+", default=[2.0, 0.0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--soak", type=float, default=None, metavar="SECONDS")
    parser.add_argument("--pin", action="store_true")
    args = parser.parse_args()
    if args.pin and len(os.sched_getaffinity(0)) < 2:
        parser.error("--pin needs two CPUs or more: one for the server, the rest for the load")
    if args.warmup < 0:
        parser.error("--warmup takes a number of seconds, 0 or more")
    if args.soak is not None:
        if args.soak <= 0:
            parser.error("--soak takes a number of seconds above 0")
        row = one_run(
            args.tables[0],
            args.seats,
            args.pace[0],
            args.soak,
            args.workers,
            args.profile,
            True,
            args.warmup,
            args.pin,
        )
        print(json.dumps(row, ensure_ascii=False), flush=True)
        return
    for tables in args.tables:
        for pace in args.pace:
            row = one_run(
                tables,
                args.seats,
                pace,
                args.seconds,
                args.workers,
                args.profile,
                warmup=args.warmup,
                pinned=args.pin,
            )
            print(json.dumps(row, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
