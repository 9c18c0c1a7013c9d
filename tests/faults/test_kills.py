"""Many `kill -9` at random moments (C-8.5).

tests/server/tables/test_table_recovery.py kills the server once, at a chosen point of a hand. Here
one instance folder lives through ROUNDS kills while three tables (one per game) play on:
each round plays a random number of decisions, then sends a decision or a round of «Готов»
without waiting for its answer and kills the server after a random number of the updates
it causes — so a kill lands before, inside or after the commit of an action or of a hand's
start, or while its states are being sent. After each restart the books balance, no money
appeared or vanished, and every hand the database held unfinished is either resumed (in play
at its table, with the same id, its players reconnected to it) or cancelled and refunded.
The hands are played on afterwards; at the end every finished hand replays from its file and
`svara admin ledger verify` is clean.
"""

from __future__ import annotations

import random
import signal
import subprocess
from pathlib import Path
from typing import Any

from app.engine import handfile
from app.models import CANCELLED, FINISHED, PLAYING
from tests.server.conftest import SVARA, Server
from tests.server.tablekit import (
    Player,
    books,
    choose,
    decide,
    everyone,
    fast_server,
    hands,
    new_table,
    seat,
    whose_turn,
)

ROUNDS = 12
GAMES = {"classic": {}, "shaha36": {"stack": 400}, "svara32": {"stack": 400}}
MONEY = 1000


def caught_up(players: list[Player]) -> None:
    """Every player reads on to the newest state any of them has read. Each one's `state`
    is the last he read, not the last the server sent: a timer (a shaha36 showdown's, S-6.2,
    is 1.2 s here) can end the hand while the actor answers the state before it, and after
    his `stale` refusal only he has read the gathering (S-1.6) — the others, still «in
    play», would not answer it, and it lapses."""
    newest = max(p.state["version"] for p in players)
    everyone(players, lambda s: s["version"] >= newest)


def ready_all(players: list[Player]) -> None:
    """Everyone who may answers «Готов» until a hand is in play."""
    caught_up(players)
    for p in players:
        if p.state["phase"] != "playing" and "ready" in p.state["you"]["can"]:
            reply = p.call("table:ready")
            assert reply.get("ok") or reply.get("code") == "not_now", reply
    everyone(players, lambda s: s["phase"] == "playing")


def step(players: list[Player], rng: random.Random) -> None:
    """One decision in the hand in play, or a new hand started."""
    if players[0].state["phase"] != "playing":
        ready_all(players)
        return
    actor = whose_turn(players)
    if not actor.my_turn():  # he has read on, past a timer that moved the hand (S-6.2)
        caught_up(players)
        return
    reply = decide(players, actor, **choose(actor.hand["legal"], rng))  # type: ignore[index]
    if reply.get("code") == "stale":  # he had not read the latest state yet: it came with
        actor.event("error")  # the refusal, before this error
        caught_up(players)
        return
    assert reply == {"ok": True}, reply


def fire_and_kill(server: Server, players: list[Player], rng: random.Random) -> None:
    """Send the next move without waiting for its answer; SIGKILL after `k` updates."""
    watcher = players[0]
    if watcher.state["phase"] == "playing":
        actor = whose_turn(players)
        data: dict[str, Any] = {"table": actor.table, "version": actor.state["version"]}
        actor.client.sio.emit("table:act", {**data, **choose(actor.hand["legal"], rng)})  # type: ignore[index]
    else:
        for p in players:
            if "ready" in p.state["you"]["can"]:
                p.client.sio.emit("table:ready", {"table": p.table})
    for _ in range(rng.randrange(4)):  # 0…3 updates reach the watcher before the kill
        try:
            watcher.event("table:state", timeout=2.0)
        except AssertionError:  # nothing more was coming: kill now
            break
    server.stop(signal.SIGKILL)
    assert server.process.returncode == -signal.SIGKILL


def back(server: Server, p: Player, sit: dict[str, int]) -> None:
    """A new socket to the restarted server; the player joins his table and, unless a
    resumed hand seated him again, sits down again (seats between hands live in memory)."""
    p.browser.url = server.url
    p.client.close()
    p.client = p.browser.socket(p.table)
    p.state = {}
    p.join()
    if p.state["you"]["seat"] is None:
        p.sit(**sit)


def check_recovery(server: Server, tables: dict[int, list[Player]], unfinished: set[int]) -> None:
    """Every hand left unfinished is in play again at its table, or cancelled and refunded;
    the players are back at their tables."""
    found = books(server)
    assert found.ok, found.problems
    for table_id, players in tables.items():
        records = hands(server, table_id)
        playing = [r.id for r in records if r.status == PLAYING]
        assert len(playing) <= 1, records
        for p in players:
            back(server, p, GAMES[p.state["info"]["game"]])
            if playing:
                state = p.state
                assert state["phase"] == "playing" and state["hand"]["id"] == playing[0], state
                assert state["notice"] and "restarted" in state["notice"]
        count = len(players)
        everyone(players, lambda s, n=count: len([x for x in s["seats"] if x]) == n)
        for record in records:
            if record.id in unfinished:
                assert record.status in (PLAYING, CANCELLED), record
                if record.status == CANCELLED:
                    assert record.id not in playing


def test_many_kills_lose_nothing(tmp_path: Path) -> None:
    rng = random.Random(10)
    server = fast_server(tmp_path, "eventlet")
    tables: dict[int, list[Player]] = {}
    try:
        for game, sit in GAMES.items():
            table_id = new_table(server, game)
            tables[table_id] = seat(server, table_id, 3, MONEY, **sit)
        granted = books(server).granted
        assert granted == len(GAMES) * 3 * MONEY
        for _ in range(ROUNDS):
            for players in tables.values():
                for _ in range(rng.randrange(4)):
                    step(players, rng)
            fire_and_kill(server, rng.choice(list(tables.values())), rng)
            unfinished = {
                r.id  # type: ignore[misc]
                for table_id in tables
                for r in hands(server, table_id)
                if r.status == PLAYING
            }
            server = fast_server(tmp_path, "eventlet")
            check_recovery(server, tables, unfinished)
            assert books(server).granted == granted
        for players in tables.values():  # the resumed hands play to their ends
            while players[0].state["phase"] == "playing":
                step(players, rng)
        statuses = {r.status for t in tables for r in hands(server, t)}
        assert FINISHED in statuses and statuses <= {FINISHED, CANCELLED}, statuses
        for table_id in tables:
            for record in hands(server, table_id):
                if record.status == FINISHED:
                    assert handfile.replay(handfile.parse(record.hand_file)).finished
        verified = subprocess.run(
            [SVARA, "admin", "--instance", str(tmp_path), "ledger", "verify"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert not any("Traceback" in line for line in server.output), server.output
    finally:
        for players in tables.values():
            for p in players:
                p.close()
        server.stop()
