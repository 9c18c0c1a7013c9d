"""Beyond one machine (docs/architecture.md, «Beyond one machine»): two server processes, one
PostgreSQL, one Redis.

Redis and PostgreSQL come from Debian's packages (`make system-deps` installs them) and run
here on loopback ports of their own, in temporary folders; PostgreSQL runs as the `postgres`
user when the tests run as root (its server refuses root). Process A owns the even table
ids, B the odd ones (`SHARD`, app/shards.py); both share the database, the secret key and the
message queue. Each table is played by clients connected to its owner; the other process
refuses it (`elsewhere`); a lobby client on B hears the seats taken at A's table (Flask-
SocketIO's Redis queue), and one opened later lists them (stored by A in the table's row);
a seated player's table page on A is told when the same table's page connects on B (his
lobby there takes nothing over); accounts and money are the same on both, and the books
balance.
"""

from __future__ import annotations

import glob
import json
import os
import random
import secrets
import shlex
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis

from app import ledger
from app.lobby.service import create_table
from app.models import Database
from app.rooms import CHANNEL
from app.shards import Shard
from tests.server.conftest import WAIT, Browser, Server, start_server, unique_name
from tests.server.tablekit import SCALE, SLOW_TIMERS, Player, everyone, grant, play_hand

SEATED = 3
MONEY = 1000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A throw-away Redis on loopback (no persistence); its URL."""
    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        for line in process.stdout:  # no sleeping: Redis says when it is ready
            if "Ready to accept connections" in line:
                break
        else:
            raise AssertionError("redis-server exited before it was ready")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=WAIT)


def as_postgres(*command: str) -> None:
    """Run a PostgreSQL tool; as the `postgres` user when we are root (the server refuses
    to run as root)."""
    line = list(command)
    if os.geteuid() == 0:
        line = ["su", "postgres", "-c", shlex.join(line)]
    subprocess.run(line, check=True, capture_output=True, timeout=120)


@contextmanager
def postgres_server() -> Iterator[str]:
    """A throw-away PostgreSQL cluster on a loopback port; the URL of a fresh database."""
    (tools,) = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1:]
    folder = Path(tempfile.mkdtemp(prefix="svara-pg-"))  # not under root's private tmp
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data, port = folder / "data", free_port()
    as_postgres(f"{tools}/initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    as_postgres(f"{tools}/pg_ctl", "-D", str(data), "-o", options, "-l", str(folder / "log"),
                "-w", "start")  # fmt: skip
    try:
        with psycopg.connect(f"host=127.0.0.1 port={port} user=postgres", autocommit=True) as c:
            c.execute("CREATE DATABASE svara")
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/svara"
    finally:
        as_postgres(f"{tools}/pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def published(queue_url: str) -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """What the processes publish on Flask-SocketIO's channel from now on: a function that
    returns every message up to now (a marker published last says «up to now»)."""
    client = redis.Redis.from_url(queue_url)
    listener = client.pubsub(ignore_subscribe_messages=True)
    listener.subscribe(CHANNEL)
    listener.get_message(timeout=WAIT)  # the subscription's confirmation

    def so_far() -> list[dict[str, Any]]:
        marker = secrets.token_hex(8)
        client.publish(CHANNEL, json.dumps({"marker": marker}))
        seen: list[dict[str, Any]] = []
        while (m := listener.get_message(timeout=WAIT)) is not None:
            data = json.loads(m["data"])
            if data.get("marker") == marker:
                return seen
            seen.append(data)
        raise AssertionError(f"the marker never came back; heard {len(seen)} messages")

    try:
        yield so_far
    finally:
        listener.close()
        client.close()


def test_two_processes_share_the_database_and_the_lobby_each_plays_its_own_tables(
    tmp_path: Path,
) -> None:
    with (
        redis_server(tmp_path) as queue_url,
        published(queue_url) as heard,
        postgres_server() as database_url,
    ):
        shared = {
            "SVARA_DATABASE_URL": database_url,
            "SVARA_MESSAGE_QUEUE": queue_url,
            "SVARA_SECRET_KEY": secrets.token_hex(32),
            "SVARA_TIMER_SCALE": str(SCALE),
        }
        servers: list[Server] = []
        players: list[Player] = []
        db = Database(database_url)
        try:
            # One after the other: the first start migrates the shared database.
            for shard in ("0/2", "1/2"):
                folder = tmp_path / f"instance-{shard[0]}"
                servers.append(start_server(folder, "eventlet", SVARA_SHARD=shard, **shared))
            with db.session() as s:
                made = [create_table(s, f"t{i}", "classic", rules=SLOW_TIMERS["classic"])
                        for i in range(2)]  # fmt: skip
                owned = {t.id % 2: t.id for t in made}  # type: ignore[operator]
            assert set(owned) == {0, 1}

            lobby = Browser(servers[1].url)  # a lobby client of process B
            lobby.register(unique_name("lobby"))
            watcher = lobby.socket()
            assert watcher.call("lobby:join")["ok"]
            listed = watcher.wait("lobby:state")["tables"]
            assert {owned[0], owned[1]} <= {t["id"] for t in listed}  # one database

            # The table of A is refused by B; its players connect to A.
            assert watcher.call("table:join", {"table": owned[0]})["code"] == "elsewhere"
            tables: dict[int, list[Player]] = {}
            for index, server in enumerate(servers):
                table = owned[index]
                tables[index] = [Player(server, table) for _ in range(SEATED)]
                players += tables[index]
                for p in tables[index]:
                    grant(db, p.name, MONEY)
                    p.join()
                    p.sit()
                everyone(tables[index], lambda s: len([x for x in s["seats"] if x]) == SEATED)

            # B's lobby client heard A's seats through Redis.
            while True:
                seen = watcher.wait("lobby:table")
                if seen["id"] == owned[0] and seen["seated"] == SEATED:
                    break

            # A lobby opened on B afterwards lists A's seats too (stored by A, read by B).
            late = Browser(servers[1].url)
            late.register(unique_name("late"))
            newcomer = late.socket()
            assert newcomer.call("lobby:join")["ok"]
            rows = {t["id"]: t for t in newcomer.wait("lobby:state")["tables"]}
            assert [rows[owned[i]]["seated"] for i in (0, 1)] == [SEATED, SEATED]
            newcomer.close()

            rng = random.Random(5)
            for index in (0, 1):
                for p in tables[index]:
                    assert p.call("table:ready") == {"ok": True}
                final = play_hand(tables[index], rng)
                assert final["phase"] == "finished"

            # A table's states go to its players' sockets, all on its owner: written there
            # directly, never through Redis (app/rooms.py); the lobby's news crosses.
            events = [m["event"] for m in heard() if m.get("method") == "emit"]
            assert "lobby:table" in events
            assert "table:state" not in events, events.count("table:state")

            # One table page per account and table (C-8.2) across processes: a seated
            # player's lobby opened on B takes nothing over; his table's page opened again,
            # on B, tells his socket on A (through Redis, the page then closes it).
            roamer = tables[0][0]
            other = Browser(servers[1].url)  # the same session cookie: one secret key
            other.http.cookies.update(roamer.browser.http.cookies)
            lobby_b = other.socket()
            assert lobby_b.call("lobby:join")["ok"]
            assert roamer.call("table:join")["ok"]  # A's socket is current
            table_b = other.socket(roamer.table)
            taken = roamer.event("session:taken_over")
            assert taken == {"reason": "opened elsewhere", "table": roamer.table}
            assert not any(name == "session:taken_over" for name, _ in lobby_b.seen)
            assert lobby_b.call("lobby:join")["ok"]
            for client in (lobby_b, table_b):
                client.close()

            with db.session() as s:
                books = ledger.verify(s)
            assert books.ok, books.problems
            assert books.granted == 2 * SEATED * MONEY
            watcher.close()
        finally:
            for p in players:
                p.close()
            for server in servers:
                server.stop()
            db.dispose()
        for server in servers:
            assert "Traceback" not in "".join(server.output), "".join(server.output)


def test_each_table_has_exactly_one_owner() -> None:
    """`SHARD = "i/n"`: every table id is owned by exactly one of the n processes."""
    shards = [Shard.parse(f"{i}/3") for i in range(3)]
    for table_id in range(1, 50):
        assert sum(s.owns(table_id) for s in shards) == 1
    assert Shard.parse("0/1").owns(7) and Shard() == Shard.parse("0/1")
    for wrong in ("3/3", "-1/2", "1/0", "a/b"):
        with pytest.raises(ValueError):
            Shard.parse(wrong)
