"""A soak: bots playing at several tables for a long time; the server must stay flat.

Run: .venv/bin/python -m benchmarks.bench_soak [--minutes 30] [--tables 12] [--seats 6]
     [--pace 1]

One `svara serve` (eventlet) and `--tables` classic tables of bots thinking about `--pace`
seconds (`benchmarks.loadgen`) for `--minutes`. Prints one JSON line per minute (the
server's RSS, open descriptors, CPU) and a final line with the drift (first third of the run
against the last third) and the latency percentiles. Kept out of CI; tests/load/test_soak.py
is its 2-minute version.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from .loadgen import by_minute, drift, load_server, prepare, run_tables, sqlite_url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--pace", type=float, default=1.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="svara-soak-") as folder:
        instance = Path(folder)
        with load_server(instance) as server:
            seatings = prepare(sqlite_url(instance), instance, args.tables, args.seats)
            result = run_tables(
                server.url, server.process.pid, seatings, args.pace, args.minutes * 60, workers=1
            )
    for minute in by_minute(result):
        print(json.dumps(minute))
    shift = {k: round(v, 1) for k, v in drift(result.samples).items()}
    print(json.dumps({**result.summary(), **shift}, ensure_ascii=False))


if __name__ == "__main__":
    main()
