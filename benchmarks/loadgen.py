"""The load generator: bot-driven Socket.IO clients filling tables of a real `svara serve`.

Used by `bench_load` (latency at 10…125 tables), `bench_soak` (30 minutes) and the CI soak
and scale-out tests. Loopback only, and bounded: a fixed number of clients for a fixed time.

How a run goes:
- `prepare` puts the players and tables straight into the server's database, the way the
  admin CLI does from another process, and signs each player's session cookie with the
  instance's secret key (`app.auth.service.log_in`): a thousand argon2 logins would measure
  the password hash, not the table.
- `run_tables` spreads the tables over worker processes (a table's clients all in one, so
  its latency is measured on one clock). Each worker is one asyncio loop of
  `socketio.AsyncClient`s; each client joins its table, sits and plays like a person:
  «Готов» between hands, a random legal decision when the hand awaits it, after a think time
  (`pace`, 0 = at full speed).
- Latency is action → update as the OTHER seats see it: from the moment the actor emits
  `table:act` to the first `table:state` each other seat receives with a newer version.
- `Sampler` reads the server process's CPU, RSS and open file descriptors once a second.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing as mp
import queue
import random
import statistics
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import psutil
import socketio
from flask import Flask, session
from sqlmodel import select

from app import ledger
from app.auth.service import log_in
from app.config import secret_key
from app.lobby.service import create_table
from app.models import Database, User
from app.wire import WirePacket
from tests.server.conftest import Server, start_server

# Timers far beyond any think time: a bot never times out, every update is an action's.
SLOW_TIMERS = {"turn_seconds": 600, "ready_seconds": 600, "svara_seconds": 600}
MONEY = 10_000_000  # each bot's balance: random play never runs it out in a run
CONNECT_AT_ONCE = 25  # connections opened concurrently per worker
WAIT = 60.0
#: A full-collection threshold never reached in a bounded run (`quiet_collector`).
NEVER = 10**9


class _OrJson:
    """Both ways by orjson (the server's `WirePacket` reads with the standard library)."""

    loads = staticmethod(orjson.loads)

    @staticmethod
    def dumps(data: Any, **options: Any) -> str:
        return orjson.dumps(data).decode()


class LoadPacket(WirePacket):
    """The bots' packet: the server's text packet, decoded by orjson. Every decision sends
    each of the table's other seats a `table:state` of a few KB, and the load generator
    that reads them shares the two cores with the server it measures (docs/
    performance.md, «4,000 players»)."""

    json = _OrJson


@dataclass(frozen=True)
class Seating:
    """One table and its players' names and signed session cookies."""

    table: int
    names: list[str]
    cookies: list[str]
    url: str | None = None  # the process that plays the table (several: bench_scale_out)


def session_cookie(secret: str, user: User) -> str:
    """The `Cookie` header a browser would hold after logging in as `user`."""
    app = Flask("loadgen")
    app.secret_key = secret
    with app.test_request_context():
        log_in(user)
        value = app.session_interface.get_signing_serializer(app).dumps(dict(session))  # type: ignore[attr-defined]
    return f"{app.config['SESSION_COOKIE_NAME']}={value}"


def prepare(
    database_url: str,
    instance: Path,
    tables: int,
    seats: int,
    variant: str = "classic",
    prefix: str = "bot",
) -> list[Seating]:
    """`tables` new tables of `seats` seats and a funded bot for every seat."""
    db = Database(database_url)
    secret = secret_key(instance)
    out: list[Seating] = []
    try:
        with db.session() as s:
            taken = len(s.exec(select(User.id)).all())
            for t in range(tables):
                table = create_table(s, f"load {t}", variant, seats=seats, rules=SLOW_TIMERS)
                assert table.id is not None
                names, cookies = [], []
                for i in range(seats):
                    name = f"{prefix}{taken}_{t}_{i}"
                    # Never logs in with a password: the cookie is signed below.
                    user = User(name=name, password_hash="!")
                    s.add(user)
                    s.flush()
                    assert user.id is not None
                    ledger.grant(s, user, MONEY, "load test")
                    names.append(name)
                    cookies.append(session_cookie(secret, user))
                out.append(Seating(table.id, names, cookies))
    finally:
        db.dispose()
    return out


@contextmanager
def load_server(instance: Path, **env: str) -> Iterator[Server]:
    """A `svara serve` (eventlet, loopback, any free port) on `instance`; at the end it is
    stopped and must have printed no traceback."""
    server = start_server(instance, "eventlet", **env)
    try:
        yield server
    finally:
        server.stop()
    printed = "".join(server.output)
    if "Traceback" in printed:
        raise RuntimeError(f"the server printed a traceback:\n{printed}")


def sqlite_url(instance: Path) -> str:
    return f"sqlite:///{instance / 'svara.db'}"


# --- one table's measurements ---------------------------------------------------------------
@dataclass
class Sent:
    """The action in flight at a table: the version it answered and when it left."""

    version: int
    at: float
    actor: str


@dataclass
class Tally:
    """What one worker measured."""

    latencies: list[float] = field(default_factory=list)
    latency_at: list[float] = field(default_factory=list)  # when each was measured (monotonic)
    actions: int = 0
    hands: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    late: list[float] = field(default_factory=list)  # the worker's own loop, while timed
    connected: int = 0
    seated: int = 0
    cpu_seconds: float = 0.0  # the worker's own CPU while playing (the load generator's cost)

    def refuse(self, code: str) -> None:
        self.refused[code] = self.refused.get(code, 0) + 1


@dataclass(frozen=True)
class Seen:
    """What a bot decides from, taken out of a `table:state`: the version, whether a hand is
    in play, its options when it awaits him, and whether «Готов» is open to him. Only this
    outlives the message. Kept whole, the states of a worker's 2,000 clients outlived its
    young collections, and each middle one walked them: pauses of the worker, timed as the
    server's latency (docs/performance.md, «4,000 players: the load generator's
    collections, and the steady state»)."""

    version: int
    playing: bool
    options: list[dict[str, Any]]
    ready: bool

    @classmethod
    def of(cls, state: dict[str, Any], name: str) -> Seen:
        hand = state.get("hand")
        playing = state["phase"] == "playing"
        awaited = playing and bool(hand) and name in hand["awaiting"]
        return cls(
            state["version"],
            playing,
            hand["legal"] if awaited else [],
            "ready" in state["you"]["can"],
        )


class Bot:
    """One player: a socket, what he saw last, at most one decision on the way."""

    def __init__(self, url: str, table: int, name: str, cookie: str, shared: TableRun):
        self.url, self.table, self.name, self.cookie = url, table, name, cookie
        self.shared = shared
        self.sio = socketio.AsyncClient(reconnection=False, serializer=LoadPacket)
        self.seen: Seen | None = None
        self.busy = False
        self.measured: int | None = None  # the version of the last action timed here
        self.sio.on("table:state", self._on_state)

    async def connect(self) -> None:
        await self.sio.connect(
            self.url, headers={"Cookie": self.cookie}, transports=["websocket"], wait_timeout=WAIT
        )
        reply = await self.sio.call("table:join", {"table": self.table}, timeout=WAIT)
        self._keep(reply["state"])
        reply = await self.sio.call("table:sit", {"table": self.table}, timeout=WAIT)
        if reply != {"ok": True}:
            raise RuntimeError(f"{self.name} could not sit: {reply}")

    def _keep(self, state: dict[str, Any]) -> None:
        if self.seen is None or state["version"] >= self.seen.version:
            self.seen = Seen.of(state, self.name)

    async def _on_state(self, state: dict[str, Any]) -> None:
        sent = self.shared.sent
        if (
            sent is not None
            and self.shared.timing
            and state["version"] > sent.version
            and sent.actor != self.name
            and self.measured != sent.version
        ):
            self.measured = sent.version
            now = time.monotonic()
            self.shared.tally.latencies.append(now - sent.at)
            self.shared.tally.latency_at.append(now)
        hand = state.get("hand")
        if hand and self.shared.timing and hand["id"] != self.shared.hand:
            self.shared.hand = hand["id"]
            self.shared.tally.hands += 1
        self._keep(state)
        self.consider()

    def _decision(self) -> tuple[str, dict[str, Any]] | None:
        """What this player would send now, if anything."""
        s = self.seen
        if s is None or not self.shared.playing:
            return None
        if s.playing:
            if s.options:
                option = dict(self.shared.rng.choice(s.options))
                if option.get("to") is None and option.get("min_to") is not None:
                    option["to"] = option["min_to"]  # a raise at its lowest
                act = {k: option[k] for k in ("do", "to", "deal") if option.get(k) is not None}
                return "table:act", {"version": s.version, **act}
            return None
        if s.ready:
            return "table:ready", {}
        return None

    def consider(self) -> None:
        if not self.busy and self._decision() is not None:
            self.busy = True
            asyncio.get_running_loop().create_task(self._decide())

    async def _decide(self) -> None:
        try:
            if self.shared.pace:
                await asyncio.sleep(self.shared.rng.uniform(0.5, 1.5) * self.shared.pace)
            decided = self._decision()  # the table may have moved on while thinking
            if decided is None:
                return
            event, data = decided
            if event == "table:act":
                self.shared.sent = Sent(data["version"], time.monotonic(), self.name)
            try:
                reply = await self.sio.call(event, {"table": self.table, **data}, timeout=WAIT)
            except socketio.exceptions.SocketIOError as lost:  # no answer, or no connection
                self.shared.tally.refuse(type(lost).__name__)
                return
            if reply.get("ok"):
                if event == "table:act" and self.shared.timing:  # the warm-up's are not
                    self.shared.tally.actions += 1
            else:
                self.shared.tally.refuse(reply.get("code") or reply.get("error", "?"))
        finally:
            self.busy = False
        self.consider()

    async def close(self) -> None:
        if self.sio.connected:
            await self.sio.disconnect()


@dataclass
class TableRun:
    """What a table's bots share in a worker (one asyncio loop: no locks needed)."""

    tally: Tally
    pace: float
    rng: random.Random
    sent: Sent | None = None
    hand: int | None = None  # the latest hand id seen, to count hands
    playing: bool = True
    timing: bool = False


# --- a worker process -------------------------------------------------------------------------
def quiet_collector() -> None:
    """No full collection of a worker's heap while it plays: a worker stands for a thousand
    or two browsers, which do not stop together; its full collections (0.3–1 s over 2,000
    clients, finding nothing) held every one of its clients, and were counted as the
    server's latency (docs/performance.md, «The load generator's own pauses»). What its
    connecting made is frozen out of the walk; a run is bounded, so is what it keeps."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, NEVER)


def _worker(
    url: str,
    seatings: list[Seating],
    pace: float,
    seed: int,
    go: Any,
    out: Any,
    seconds: float,
    warmup: float,
    done: Any,
) -> None:
    """Connect and seat every bot, say so, wait for `go`, play `warmup` untimed and
    `seconds` timed, report a Tally, then wait for `done` and close the bots (their
    disconnecting is not part of what the run measures)."""
    asyncio.run(_play(url, seatings, pace, seed, go, out, seconds, warmup, done))


async def _play(
    url: str,
    seatings: list[Seating],
    pace: float,
    seed: int,
    go: Any,
    out: Any,
    seconds: float,
    warmup: float,
    done: Any,
) -> None:
    tally = Tally()
    rng = random.Random(seed)
    runs = [TableRun(tally, pace, rng, playing=False) for _ in seatings]
    bots = [
        Bot(seating.url or url, seating.table, name, cookie, run)
        for seating, run in zip(seatings, runs, strict=True)
        for name, cookie in zip(seating.names, seating.cookies, strict=True)
    ]
    gate = asyncio.Semaphore(CONNECT_AT_ONCE)

    async def enter(bot: Bot) -> None:
        async with gate:
            await bot.connect()
            tally.connected += 1
            tally.seated += 1

    await asyncio.gather(*(enter(b) for b in bots))
    quiet_collector()
    out.put(("ready", tally.connected))
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    for run in runs:
        run.playing = True
    for bot in bots:
        bot.consider()
    await asyncio.sleep(warmup)  # every table's first «Готов» at once: not timed
    cpu = time.process_time()
    for run in runs:
        run.timing = True
    watch = asyncio.get_running_loop().create_task(_own_lateness(tally.late))
    await asyncio.sleep(seconds)
    watch.cancel()
    for run in runs:
        run.playing = run.timing = False
    tally.cpu_seconds = time.process_time() - cpu
    out.put(("played", tally))  # before the closing: the server's figures stop here
    # Every worker has played: no disconnect falls within another's timing.
    await asyncio.get_running_loop().run_in_executor(None, done.wait, WAIT)
    await asyncio.gather(*(b.close() for b in bots), return_exceptions=True)


async def _own_lateness(late: list[float], every: float = 0.1) -> None:
    """How late this worker's own loop wakes a timer: what arrives meanwhile is timed
    late, as if the server had been slow (the load generator's share of the latency)."""
    loop = asyncio.get_running_loop()
    while True:
        asked = loop.time()
        await asyncio.sleep(every)
        late.append(loop.time() - asked - every)


# --- the server's resources ---------------------------------------------------------------------
@dataclass
class Sample:
    at: float
    cpu: float  # percent of one core since the previous sample
    rss: int  # bytes
    fds: int


class Sampler:
    """Reads the server processes' CPU, RSS and file descriptors every `every` seconds
    (summed over the processes: CPU in % of one core)."""

    def __init__(self, pid: int | list[int], every: float = 1.0):
        self.processes = [psutil.Process(p) for p in ([pid] if isinstance(pid, int) else pid)]
        self.every = every
        self.samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        for process in self.processes:
            process.cpu_percent(None)
        while not self._stop.wait(self.every):
            cpu = rss = fds = 0
            for process in self.processes:
                with process.oneshot():
                    cpu += process.cpu_percent(None)
                    rss += process.memory_info().rss
                    fds += process.num_fds()
            self.samples.append(Sample(time.monotonic(), cpu, rss, fds))

    @contextmanager
    def running(self) -> Iterator[Sampler]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()


# --- a whole run ------------------------------------------------------------------------------
@dataclass
class Result:
    tables: int
    players: int
    pace: float
    seconds: float
    connected: int
    actions: int
    hands: int
    latencies: list[float]
    refused: dict[str, int]
    samples: list[Sample]
    client_cpu: float  # CPU seconds of all load workers while playing
    # How late the server's event loop woke its timer while playing (`svara_event_loop_late_
    # seconds` of the server at the run's URL): bucket bound in seconds → wake-ups up to it.
    late: dict[float, float] = field(default_factory=dict)
    client_late: list[float] = field(default_factory=list)  # the workers' loops (seconds)
    latency_at: list[float] = field(default_factory=list)  # when each latency was measured

    def late_quantile(self, q: float) -> float | None:
        """The bucket bound (ms) within which `q` % of the loop's wake-ups came: the server's
        own share of the latency, beside the clients' figures."""
        total = max(self.late.values(), default=0.0)
        for bound, count in sorted(self.late.items()):
            if count >= total * q / 100 and total:
                return bound * 1000
        return None

    def percentile(self, q: float) -> float | None:
        """The q-th percentile of the latencies in milliseconds (None without samples)."""
        return _quantile(self.latencies, q)

    def summary(self) -> dict[str, Any]:
        cpu = [s.cpu for s in self.samples]
        rss = [s.rss for s in self.samples]
        return {
            "tables": self.tables,
            "players": self.players,
            "connected": self.connected,
            "pace_s": self.pace,
            "seconds": self.seconds,
            "actions": self.actions,
            "actions_per_s": round(self.actions / self.seconds, 1),
            "hands": self.hands,
            "updates_timed": len(self.latencies),
            "p50_ms": _round(self.percentile(50)),
            "p95_ms": _round(self.percentile(95)),
            "p99_ms": _round(self.percentile(99)),
            "max_ms": _round(max(self.latencies) * 1000 if self.latencies else None),
            "server_cpu_pct": round(statistics.mean(cpu), 1) if cpu else None,
            "server_rss_mb": round(max(rss) / 2**20, 1) if rss else None,
            "rss_kb_per_player": round(max(rss) / 1024 / self.players) if rss else None,
            "server_fds": max(s.fds for s in self.samples) if self.samples else None,
            "client_cpu_pct": round(100 * self.client_cpu / self.seconds, 1),
            "loop_late_p50_ms": self.late_quantile(50),
            "loop_late_p99_ms": self.late_quantile(99),
            "client_late_p50_ms": _round(_quantile(self.client_late, 50)),
            "client_late_p99_ms": _round(_quantile(self.client_late, 99)),
            "refused": self.refused,
        }


def _quantile(seconds: list[float], q: float) -> float | None:
    """The q-th percentile of `seconds` in milliseconds (None without two samples)."""
    if len(seconds) < 2:
        return None
    return statistics.quantiles(seconds, n=1000, method="inclusive")[round(q * 10) - 1] * 1000


def drift(samples: list[Sample]) -> dict[str, float]:
    """The server's RSS (MB) and open descriptors, mean of the first third of the samples
    against the last third: a leak shows as growth between them."""
    third = max(1, len(samples) // 3)
    first, last = samples[:third], samples[-third:]
    return {
        "rss_first_mb": statistics.mean(s.rss for s in first) / 2**20,
        "rss_last_mb": statistics.mean(s.rss for s in last) / 2**20,
        "fds_first": statistics.mean(s.fds for s in first),
        "fds_last": statistics.mean(s.fds for s in last),
    }


def by_minute(result: Result) -> list[dict[str, Any]]:
    """The server's RSS (MB, and KB per player), open descriptors and CPU, and the p99 and
    longest of the latencies measured, minute by minute: where in a soak the tail comes
    from (a pause, a growing heap). The workers' clock is the sampler's (`time.monotonic`,
    one clock for every process of the machine)."""
    start = result.samples[0].at
    minutes: dict[int, list[Sample]] = {}
    for sample in result.samples:
        minutes.setdefault(int((sample.at - start) // 60), []).append(sample)
    waits: dict[int, list[float]] = {}
    for at, latency in zip(result.latency_at, result.latencies, strict=True):
        waits.setdefault(int((at - start) // 60), []).append(latency)
    return [
        {
            "minute": minute,
            "rss_mb": round(statistics.mean(s.rss for s in samples) / 2**20, 1),
            "rss_kb_per_player": round(
                statistics.mean(s.rss for s in samples) / 1024 / result.players
            ),
            "fds": max(s.fds for s in samples),
            "cpu_pct": round(statistics.mean(s.cpu for s in samples), 1),
            "p99_ms": _round(_quantile(waits.get(minute, []), 99)),
            "max_ms": _round(max(waits.get(minute, [0.0])) * 1000),
        }
        for minute, samples in sorted(minutes.items())
    ]


LATE_BUCKET = 'svara_event_loop_late_seconds_bucket{le="'


def loop_late(url: str) -> dict[float, float]:
    """The server's event-loop lateness so far, from its /metrics (loopback: no login)."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=WAIT) as answer:
        text = answer.read().decode()
    late = {}
    for line in text.splitlines():
        if line.startswith(LATE_BUCKET):
            bound, _, count = line[len(LATE_BUCKET) :].partition('"} ')
            late[float(bound)] = float(count)
    return late


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def run_tables(
    url: str,
    server_pid: int | list[int],
    seatings: list[Seating],
    pace: float,
    seconds: float,
    workers: int = 2,
    seed: int = 0,
    warmup: float = 0.0,
    during: Callable[[], AbstractContextManager[object]] | None = None,
) -> Result:
    """Play `seatings` for `seconds` with `workers` client processes; measure the server.

    At `go` every table's players answer «Готов» within one pace, all 500 tables' at once
    where people would trickle in; `warmup` seconds of play before the timed `seconds`
    keep that start out of the figures (docs/performance.md, «The synchronised start»).
    `during` is entered for the timed play only (a profiler: `bench_load --profile`)."""
    context = mp.get_context("spawn")  # no inherited sockets or threads
    go = context.Event()
    done = context.Event()  # every worker reported: they may close their bots
    out = context.Queue()
    shares = [seatings[i::workers] for i in range(workers) if seatings[i::workers]]
    processes = [
        context.Process(
            target=_worker,
            args=(url, share, pace, seed + i, go, out, seconds, warmup, done),
            daemon=True,
        )
        for i, share in enumerate(shares)
    ]
    for p in processes:
        p.start()
    connected = 0
    try:
        for _ in processes:
            kind, count = _next(out, processes)
            assert kind == "ready"
            connected += count
        go.set()
        time.sleep(warmup)
        before = loop_late(url)
        with Sampler(server_pid).running() as sampler, (during or nullcontext)():
            played = [_next(out, processes, seconds + WAIT) for _ in processes]
        late = {bound: n - before.get(bound, 0.0) for bound, n in loop_late(url).items()}
    finally:
        done.set()  # after the last figure is read: the bots may close now
        for p in processes:
            p.join(timeout=WAIT)
            if p.is_alive():
                p.kill()
    assert all(kind == "played" for kind, _ in played)
    merged = Tally()
    for _, t in played:
        merged.latencies += t.latencies
        merged.latency_at += t.latency_at
        merged.actions += t.actions
        merged.hands += t.hands
        merged.cpu_seconds += t.cpu_seconds
        merged.late += t.late
        for code, n in t.refused.items():
            merged.refused[code] = merged.refused.get(code, 0) + n
    players = sum(len(s.names) for s in seatings)
    return Result(
        len(seatings),
        players,
        pace,
        seconds,
        connected,
        merged.actions,
        merged.hands,
        merged.latencies,
        merged.refused,
        sampler.samples,
        merged.cpu_seconds,
        late,
        merged.late,
        merged.latency_at,
    )


def _next(out: Any, processes: list[Any], timeout: float = 600.0) -> Any:
    """The next message of a worker; fails if every worker died first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return out.get(timeout=1.0)
        except queue.Empty:
            if not any(p.is_alive() for p in processes):
                raise RuntimeError("every load worker exited") from None
    raise RuntimeError(f"no word from the load workers within {timeout} s")
