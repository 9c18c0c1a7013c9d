"""Nothing is lost by `kill -9` (C-8.5): the server process is killed with SIGKILL
in the middle of a hand and started again on the same instance folder."""

from __future__ import annotations

import random
import signal
from pathlib import Path

import pytest

from app import ledger
from app.engine import handfile
from app.engine.handfile import replay_record
from app.models import HandRecord, Table

from ..conftest import ASYNC_MODES, Server
from ..tablekit import (
    SLOW_TIMERS,
    Player,
    balances,
    books,
    choose,
    close_in_db,
    database,
    decide,
    everyone,
    fast_server,
    grant,
    hands,
    new_table,
    play_hand,
    seat,
    whose_turn,
)


def into_the_hand(server: Server, variant: str, decisions: int, **sit: int) -> list[Player]:
    """Three players, a hand started and `decisions` decisions into it."""
    table = new_table(server, variant)
    players = seat(server, table, 3, 1000, **sit)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    rng = random.Random(11)
    for _ in range(decisions):
        actor = whose_turn(players)
        assert decide(players, actor, **choose(actor.hand["legal"], rng)) == {"ok": True}  # type: ignore[index]
    everyone(players, lambda s: s["phase"] == "playing")
    return players


def own_cards(p: Player) -> list[str] | None:
    return next(x["cards"] for x in p.hand["players"] if x["name"] == p.name)  # type: ignore[index]


def killed(server: Server) -> None:
    server.stop(signal.SIGKILL)
    assert server.process.returncode == -signal.SIGKILL


@pytest.mark.parametrize("mode", ASYNC_MODES)
def test_a_hand_killed_mid_way_is_resumed_from_its_log(tmp_path: Path, mode: str) -> None:
    """After the restart the same hand goes on: the players' new sockets get their seats and
    the same cards, a notice says why, the timers start again; the hand is played to its
    end, money is conserved and the books balance."""
    server = fast_server(tmp_path, mode)
    players = into_the_hand(server, "classic", 2)
    names = [p.name for p in players]
    cards = {p.name: own_cards(p) for p in players}
    hand_id = players[0].hand["id"]  # type: ignore[index]
    killed(server)
    server = fast_server(tmp_path, mode)
    try:
        for p in players:
            state = p.reconnect(server)
            assert state["hand"]["id"] == hand_id and state["phase"] == "playing"
            assert state["notice"] and "restarted" in state["notice"]
            assert state["turn"]["deadline"]
            assert own_cards(p) == cards[p.name]
            assert len(state["history"]) == 2
        play_hand(players, random.Random(2))
        assert sum(balances(server, names).values()) == 3000
        (record,) = hands(server, players[0].table)
        assert record.status == "finished"
        assert handfile.replay(handfile.parse(record.hand_file)).finished
        assert books(server).ok, books(server).problems
    finally:
        for p in players:
            p.close()
        server.stop()


@pytest.mark.parametrize(("mode", "variant"), [("eventlet", "classic"), ("threading", "shaha36")])
def test_a_hand_that_cannot_be_resumed_is_refunded(tmp_path: Path, mode: str, variant: str) -> None:
    """C-8.5: the table was closed while the server was down, so the hand cannot go on: it is
    cancelled, every payment goes back to its owner and the stacks to the balances (S-1.5)."""
    server = fast_server(tmp_path, mode)
    sit = {"stack": 400} if variant == "shaha36" else {}
    players = into_the_hand(server, variant, 1, **sit)
    names = [p.name for p in players]
    table_id = players[0].table
    killed(server)
    close_in_db(server, table_id)
    server = fast_server(tmp_path, mode)
    try:
        assert balances(server, names) == dict.fromkeys(names, 1000)
        (record,) = hands(server, table_id)
        assert record.status == "cancelled"
        assert books(server).ok, books(server).problems
    finally:
        for p in players:
            p.close()
        server.stop()


def test_stacks_of_a_resumed_shaha36_hand_stay_at_the_table(tmp_path: Path) -> None:
    """S-1.5 after a restart: the resumed hand's players keep their stacks at the table; when
    they stand up afterwards every chip goes back to the balances (less the rake)."""
    server = fast_server(tmp_path, "eventlet")
    players = into_the_hand(server, "shaha36", 1, stack=400)
    names = [p.name for p in players]
    killed(server)
    server = fast_server(tmp_path, "eventlet")
    try:
        for p in players:
            p.reconnect(server)
        assert balances(server, names) == dict.fromkeys(names, 600)
        play_hand(players, random.Random(4))
        for p in players:
            p.until(lambda s: s["phase"] != "playing")
            assert p.call("table:stand") == {"ok": True}
        everyone(players, lambda s: not any(s["seats"]))
        after = sum(balances(server, names).values())
        assert 3000 - 100 <= after <= 3000  # the rake is at most 10 antes (S-8.1)
        assert books(server).ok, books(server).problems
    finally:
        for p in players:
            p.close()
        server.stop()


def test_a_svara_entry_window_is_one_deadline_for_all_who_may_enter(tmp_path: Path) -> None:
    """C-7.3's Decision: the eligible players decide at the same time within
    `svara_seconds` (not a turn's time), one deadline for them all. The hand is set up as
    a crash leaves it on disk: its deals, its actions and their payments."""
    server = fast_server(tmp_path, "threading")
    rules = {**SLOW_TIMERS["classic"], "turn_seconds": 60}  # 1.2 s here, the entry 12 s
    table_id = new_table(server, "classic", **rules)
    a, b, c, d = players = [Player(server, table_id) for _ in range(4)]
    for p in players:
        grant(server, p.name, 100)
    killed(server)
    doc = {
        "format": "svara-hand/1",
        "variant": "classic",
        "rules": rules,
        "players": [{"name": p.name, "balance": 100} for p in players],
        "dealer": d.name,
        "deals": [
            {
                a.name: ["A♥", "K♥", "Q♥"],
                b.name: ["A♠", "K♠", "Q♠"],
                c.name: ["7♣", "8♦", "9♠"],
                d.name: ["6♣", "8♣", "10♦"],
            }
        ],
        "actions": [
            {"player": a.name, "do": "pass"},
            {"player": b.name, "do": "pass"},
            {"player": c.name, "do": "fold"},
            {"player": d.name, "do": "open"},  # a and b tie at 31: «СВАРА!»
        ],
    }
    hand, _ = replay_record(doc)
    db = database(server)
    with db.session() as s:
        record = HandRecord(table_id=table_id, hand_file=doc, actions=doc["actions"])
        s.add(record)
        s.flush()
        assert record.id is not None
        ledger.post(s, hand.transfers, hand_id=record.id, table_id=table_id)
    db.dispose()
    server = fast_server(tmp_path, "threading")
    try:
        for p in players:
            p.reconnect(server)
        everyone(players, lambda s: all(x["connected"] for x in s["seats"] if x))
        state = c.until(lambda s: s["hand"]["phase"] == "svara_entry" and s)
        assert state["turn"]["awaiting"] == sorted([c.name, d.name])
        deadline = state["turn"]["deadline"]
        assert deadline - state["now"] > 5  # `svara_seconds`, not `turn_seconds`
        assert decide(players, c, do="join") == {"ok": True}
        assert d.state["turn"] == {"awaiting": [d.name], "deadline": deadline}
        assert decide(players, d, do="skip") == {"ok": True}
        assert a.state["hand"]["phase"] == "betting"
        assert a.state["turn"]["deadline"] - a.state["now"] < 5  # a turn of the new deal
        play_hand(players, random.Random(8))
        assert sum(balances(server, [p.name for p in players]).values()) == 400
        assert books(server).ok, books(server).problems
    finally:
        for p in players:
            p.close()
        server.stop()


def stored_seated(server: Server, *table_ids: int) -> list[int]:
    """The seats taken as stored in the tables' rows (what other processes' lobbies list)."""
    db = database(server)
    with db.session() as s:
        stored = [s.get(Table, t).seated for t in table_ids]  # type: ignore[union-attr]
    db.dispose()
    return stored


def test_the_stored_occupancy_is_the_running_servers(tmp_path: Path) -> None:
    """A table's row keeps the seats its process holds (several processes: the others'
    lobbies read it). After a kill -9 it is this run's: the players of the resumed hand
    (C-8.5), none at a table whose seats were only in the killed process."""
    server = fast_server(tmp_path, "eventlet")
    in_hand = into_the_hand(server, "classic", 1)
    waiting = seat(server, new_table(server, "classic"), 2, 100)
    tables = (in_hand[0].table, waiting[0].table)
    assert stored_seated(server, *tables) == [3, 2]
    killed(server)
    server = fast_server(tmp_path, "eventlet")
    try:
        assert stored_seated(server, *tables) == [3, 0]
    finally:
        for p in in_hand + waiting:
            p.close()
        server.stop()
