"""Hostile clients against one `svara serve` (eventlet): another player's round-trip.

Run: .venv/bin/python -m benchmarks.bench_guard [--seconds 15] [--rate 20]
     [--login-flooders 4] [--events 500] [--roomy]

A fresh server on a fresh instance folder (loopback) with 51 open tables; one player
(«Мария…», a signed session cookie, `benchmarks.loadgen.prepare`) sits at one and sends
`table:join` `--rate` times a second, each timed to its ack: the round-trip. It is
measured for `--seconds` in each of three phases, one after the other:
- `baseline`: nobody else;
- `logins`: `--login-flooders` processes post wrong passwords under random names to
  /login as fast as the server answers (each from its own loopback address, 127.0.0.2…);
- `events`: one logged-in client sends `--events` events a second — `lobby:join`,
  `table:join`, a stale `table:act`, an unknown event, in turn — and connects again
  whenever the server disconnects it.
Prints one JSON line per phase (median and p95 round-trip in ms, samples, what the flooders
got back) and a last line with the check of docs/performance.md: each phase's median within
3 × the baseline's + 50 ms. `--roomy` raises the login limits out of the way (every wrong
login then costs a real argon2 hash: the hashing itself off the event loop).

Run from a checkout (it starts that checkout's `svara`): the same command in an old
checkout measures the old code (docs/performance.md says how).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import re
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import requests
import socketio

from .loadgen import load_server, prepare, sqlite_url

CSRF = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"')
ROOMY = {
    f"SVARA_{key}": "100000/minute"
    for key in ("LOGIN_RATE", "LOGIN_RATE_TOTAL", "SIGNUP_RATE", "SIGNUP_RATE_TOTAL")
}
WAIT = 30.0
LOBBY = 50  # open tables besides the player's


def login_flood(url: str, address: str, seconds: float, out: Any) -> None:
    """Wrong logins under random names from `address`, back to back; counts the answers."""
    from requests.adapters import HTTPAdapter

    http = requests.Session()
    adapter = HTTPAdapter()
    adapter.init_poolmanager(1, 1, source_address=(address, 0))
    http.mount("http://", adapter)
    token = CSRF.search(http.get(url + "/login", timeout=WAIT).text).group(1)  # type: ignore[union-attr]
    rng = random.Random(address)
    out.put("ready")
    answers: dict[str, int] = {}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        name = "".join(rng.choice("абвгдежзиклмн") for _ in range(8))
        try:
            status = str(
                http.post(
                    url + "/login",
                    data={"name": name, "password": "не тот пароль", "csrf_token": token},
                    timeout=WAIT,
                    allow_redirects=False,
                ).status_code
            )
        except requests.RequestException as e:
            status = type(e).__name__
        answers[status] = answers.get(status, 0) + 1
    out.put(answers)


def event_flood(
    url: str, cookie: str, table: int, per_second: float, seconds: float, out: Any
) -> None:
    """`per_second` events (no acks awaited), reconnecting whenever the server hangs up."""
    events = [
        ("lobby:join", {}),
        ("table:join", {"table": table}),
        ("table:act", {"table": table, "version": 1, "do": "fold"}),
        ("no:such", {}),
    ]
    counts = {"sent": 0, "connects": 0, "refused_connects": 0, "refused_rate": 0}

    def refused(data: Any) -> None:
        if isinstance(data, dict) and data.get("code") == "rate":
            counts["refused_rate"] += 1

    def client() -> socketio.Client:
        made = socketio.Client(reconnection=False)
        made.on("error", refused)
        return made

    sio = client()
    out.put("ready")
    end = time.monotonic() + seconds
    gap = 1 / per_second
    next_at = time.monotonic()
    while time.monotonic() < end:
        if not sio.connected:
            sio = client()  # a fresh one: the old may still be closing
            try:
                sio.connect(
                    url, headers={"Cookie": cookie}, transports=["websocket"], wait_timeout=WAIT
                )
                counts["connects"] += 1
            except socketio.exceptions.ConnectionError:
                counts["refused_connects"] += 1
                continue
        name, data = events[counts["sent"] % len(events)]
        try:
            sio.emit(name, data)
            counts["sent"] += 1
        except socketio.exceptions.SocketIOError:
            continue
        next_at += gap
        pause = next_at - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        else:
            next_at = time.monotonic()
    if sio.connected:
        sio.disconnect()
    out.put(counts)


def seated(url: str, cookie: str, table: int) -> socketio.Client:
    """The measuring player, connected once for every phase and seated at `table`."""
    sio = socketio.Client(reconnection=False)
    sio.connect(url, headers={"Cookie": cookie}, transports=["websocket"], wait_timeout=WAIT)
    assert sio.call("table:sit", {"table": table}, timeout=WAIT)["ok"]
    return sio


def probe(sio: socketio.Client, table: int, per_second: float, seconds: float) -> list[float]:
    """Round-trips (ms) of `table:join` acks, sent every 1/`per_second` s whether or not the
    last was answered (so a stalled server is sampled as often as a free one); a call not
    answered at the end counts as the whole wait."""
    sent: list[float] = []
    times: dict[int, float] = {}
    answered = threading.Condition()

    def ack(i: int) -> Any:
        def done(reply: Any) -> None:
            with answered:
                times[i] = (time.monotonic() - sent[i]) * 1000
                answered.notify()

        return done

    start = time.monotonic()
    while (now := time.monotonic()) < start + seconds:
        sent.append(now)
        sio.emit("table:join", {"table": table}, callback=ack(len(sent) - 1))
        time.sleep(max(0.0, start + len(sent) / per_second - time.monotonic()))
    with answered:
        answered.wait_for(lambda: len(times) == len(sent), timeout=WAIT)
        end = time.monotonic()
        return [times.get(i, (end - at) * 1000) for i, at in enumerate(sent)]


def summary(name: str, times: list[float], flooders: list[Any]) -> dict[str, Any]:
    ordered = sorted(times)
    return {
        "phase": name,
        "median_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
        "samples": len(ordered),
        "flooders": flooders,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--login-flooders", type=int, default=4)
    parser.add_argument("--events", type=float, default=500.0)
    parser.add_argument("--roomy", action="store_true")
    args = parser.parse_args()
    context = mp.get_context("spawn")
    rows = []
    with tempfile.TemporaryDirectory(prefix="svara-guard-") as folder:
        instance = Path(folder)
        with load_server(instance, **(ROOMY if args.roomy else {})) as server:
            (seating,) = prepare(sqlite_url(instance), instance, 1, 2, prefix="Мария")
            prepare(sqlite_url(instance), instance, LOBBY, 2, prefix="Борис")  # lobby:join lists
            player, flooder = seating.cookies
            table = seating.table
            sio = seated(server.url, player, table)

            def phase(name: str, workers: list[Any]) -> None:
                out = context.Queue()
                procs = [context.Process(target=w[0], args=(*w[1:], out)) for w in workers]
                for p in procs:
                    p.start()
                for _ in procs:
                    assert out.get(timeout=2 * WAIT) == "ready"
                times = probe(sio, table, args.rate, args.seconds)
                got = [out.get(timeout=2 * WAIT + args.seconds) for _ in procs]
                for p in procs:
                    p.join(WAIT)
                rows.append(summary(name, times, got))
                print(json.dumps(rows[-1], ensure_ascii=False), flush=True)

            phase("baseline", [])
            phase(
                "logins",
                [
                    (login_flood, server.url, f"127.0.0.{i + 2}", args.seconds + 1)
                    for i in range(args.login_flooders)
                ],
            )
            phase(
                "events",
                [(event_flood, server.url, flooder, table, args.events, args.seconds + 1)],
            )
            sio.disconnect()
    base = rows[0]["median_ms"]
    bound = 3 * base + 50
    verdict = {row["phase"]: row["median_ms"] <= bound for row in rows[1:]}
    print(json.dumps({"bound_ms": round(bound, 1), "within": verdict}), flush=True)


if __name__ == "__main__":
    main()
