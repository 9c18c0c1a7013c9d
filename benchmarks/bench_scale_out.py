"""Scale-out: the same load on one `svara serve` process and on two (docs/hosting.md,
«Several processes»: one PostgreSQL, one Redis, tables sharded by id).

Run: .venv/bin/python -m benchmarks.bench_scale_out [--tables 50] [--seats 8]
     [--pace 0 2] [--seconds 30] [--workers 2] [--cpu-budget CORES]

Redis and PostgreSQL are started from Debian's packages on loopback ports of their own
(as tests/load/test_scale_out.py does), a fresh database for each run. «one» is a single
process (`SHARD=0/1`), «two» two processes (`0/2`, `1/2`), both on the same PostgreSQL and
Redis, so the only difference is the second process; every table's bots connect to the
process that owns it. Prints one JSON line per (processes, pace): `--pace 0` (full speed:
decisions per second is the figure), `--pace 2` (human pace: the latency percentiles), the
servers' CPU summed (% of one core) and RSS summed; then the ratios two / one.

`--cpu-budget 0.5` gives each server process half a core of its own (benchmarks/cpu_budget.py,
root only): the size of the machine each process would have alone, so that on a small machine
the load generator, PostgreSQL and Redis are not what two processes share.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.config import SECRET_KEY_FILE, secret_key
from tests.load.test_scale_out import postgres_server, redis_server

from .cpu_budget import cpu_budget
from .loadgen import load_server, prepare, run_tables


def one_run(
    processes: int,
    tables: int,
    seats: int,
    pace: float,
    seconds: float,
    workers: int,
    budget: float | None = None,
) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="svara-scale-") as folder,
        redis_server(Path(folder)) as queue_url,
        postgres_server() as database_url,
    ):
        root = Path(folder)
        key = secret_key(root)  # one secret key: the cookies are good on every process
        shared = {"SVARA_DATABASE_URL": database_url, "SVARA_MESSAGE_QUEUE": queue_url}
        instances = []
        for i in range(processes):
            instance = root / f"instance-{i}"
            instance.mkdir()
            (instance / SECRET_KEY_FILE).write_text(key)
            instance.chmod(0o700)
            (instance / SECRET_KEY_FILE).chmod(0o600)
            instances.append(instance)
        with ExitStack() as running:
            # One after the other: the first start migrates the shared database.
            servers = [
                running.enter_context(
                    load_server(instance, SVARA_SHARD=f"{i}/{processes}", **shared)
                )
                for i, instance in enumerate(instances)
            ]
            if budget is not None:
                for server in servers:
                    running.enter_context(cpu_budget(server.process.pid, budget))
            seatings = [
                replace(seating, url=servers[seating.table % processes].url)  # its owner
                for seating in prepare(database_url, root, tables, seats)
            ]
            result = run_tables(
                servers[0].url,
                [s.process.pid for s in servers],
                seatings,
                pace,
                seconds,
                workers=workers,
            )
    return {"processes": processes, "cpu_budget": budget, **result.summary()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seats", type=int, default=8)
    parser.add_argument("--pace", type=float, nargs="+", default=[0.0, 2.0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cpu-budget", type=float, default=None, metavar="CORES")
    args = parser.parse_args()
    for pace in args.pace:
        rows = {}
        for processes in (1, 2):
            row = one_run(
                processes, args.tables, args.seats, pace, args.seconds, args.workers,
                args.cpu_budget,
            )  # fmt: skip
            rows[processes] = row
            print(json.dumps(row, ensure_ascii=False), flush=True)
        one, two = rows[1], rows[2]
        ratio: dict[str, Any] = {"pace_s": pace, "ratio": "two / one"}
        for key in ("actions_per_s", "p50_ms", "p99_ms", "server_cpu_pct"):
            if one.get(key) and two.get(key) is not None:
                ratio[key] = round(two[key] / one[key], 2)
        print(json.dumps(ratio), flush=True)


if __name__ == "__main__":
    main()
