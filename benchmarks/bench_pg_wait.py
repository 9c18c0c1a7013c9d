"""PostgreSQL under eventlet: does a query hold the hub? (`svara serve` sets
`PSYCOPG_WAIT_FUNC=wait_select` under eventlet, cli/serve.py.)

Run: .venv/bin/python -m benchmarks.bench_pg_wait

Starts a throw-away PostgreSQL (Debian's packages, loopback, as tests/load/test_scale_out.py
does), and in an eventlet process runs `SELECT pg_sleep(0.5)` while a green thread sleeps
10 ms at a time; prints how late that thread's longest sleep woke, with psycopg's default
wait (`wait_c`, in C) and with `wait_select` (the patched, green `select`), each in a
process of its own (psycopg picks its wait function at import).
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, os, sys, time
import eventlet
eventlet.monkey_patch()
if sys.argv[1] != "default":
    os.environ["PSYCOPG_WAIT_FUNC"] = sys.argv[1]
import psycopg, psycopg.waiting
ticks = []
def ticker():
    for _ in range(100):
        t = time.perf_counter(); eventlet.sleep(0.01); ticks.append(time.perf_counter() - t)
thread = eventlet.spawn(ticker)
with psycopg.connect(sys.argv[2]) as c:
    t = time.perf_counter()
    c.execute("SELECT pg_sleep(0.5)")
    took = time.perf_counter() - t
thread.wait()
print(json.dumps({"wait": psycopg.waiting.wait.__name__, "query_s": round(took, 3),
                  "hub_longest_10ms_sleep_ms": round(max(ticks) * 1000)}))
"""


def main() -> None:
    from tests.load.test_scale_out import postgres_server

    with postgres_server() as url:
        dsn = url.replace("postgresql+psycopg://", "postgresql://")
        for wait in ("default", "wait_select"):
            out = subprocess.run(
                [sys.executable, "-c", PROBE, wait, dsn],
                capture_output=True,
                text=True,
                timeout=120,
            )
            print(out.stdout.strip() or json.dumps({"wait": wait, "error": out.stderr[-500:]}))


if __name__ == "__main__":
    main()
