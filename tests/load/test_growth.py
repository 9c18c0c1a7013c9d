"""What grows faster than the players must not come back (docs/performance.md, «4,000
players»): the work of one disconnect in the server's own Socket.IO client manager, at
2,000 connected players against 500; the tables one disconnect visits, with 60 tables live;
the work of one «Готов» asking where else its players' money is, with 400 hands in play
at other tables against 40, in one run; and the tables a bot leaving reads whole (none).

Counted, not timed: the rooms a disconnect visits (python-socketio walked every room of the
namespace, and each player has one of his own) and the rooms it leaves. The manager is the
one `create_app` gives the Socket.IO server, so the test also fails if it is no longer
wired in.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from flask import Flask

from app import create_app, ledger
from app.auth.presence import Player
from app.auth.roster import BOT_HASH
from app.bots import EXTENSION as BOTS
from app.bots.seats import BotSeats
from app.extensions import socketio
from app.models import Database, User, get_db
from app.tables import EXTENSION as TABLES
from app.tables import store as table_store
from app.tables.model import Person
from app.tables.registry import Tables
from app.tables.runtime import LiveTable
from app.tables.store import TableStore
from tests.server.tables.test_table_seams import balance, make_app, open_table, person
from tests.server.tables.test_table_store import antes, doc, people, table

SEATS = 8
BOUND = 1.5  # the work per disconnect may grow by this much from 500 to 2,000 players


class Walked(dict):  # type: ignore[type-arg]
    """A namespace's room table that counts the rooms a walk over it visits."""

    visited = 0

    def items(self) -> Any:
        Walked.visited += len(self)
        return super().items()

    def copy(self) -> Any:
        Walked.visited += len(self)
        return super().copy()


def work_per_disconnect(players: int) -> float:
    """Rooms visited and left per disconnect with `players` connected, 8 to a table."""
    manager = type(socketio.server.manager)()  # a fresh one of the server's kind
    ids = itertools.count(1)
    manager.server = SimpleNamespace(eio=SimpleNamespace(generate_id=lambda: str(next(ids))))
    sids = [manager.connect(f"eio-{i}", "/") for i in range(players)]
    for i, sid in enumerate(sids):
        manager.enter_room(sid, "/", ("table", i // SEATS))
    manager.rooms["/"] = Walked(manager.rooms["/"])
    left = 0
    leave = manager.basic_leave_room

    def counted(*args: Any) -> None:
        nonlocal left
        left += 1
        leave(*args)

    manager.basic_leave_room = counted  # type: ignore[method-assign]
    Walked.visited = 0
    leaving = sids[::SEATS]  # one player of each table
    for sid in leaving:
        manager.disconnect(sid, "/")
        assert sid not in manager.rooms["/"][None]
    return (Walked.visited + left) / len(leaving)


def test_a_disconnect_costs_the_same_at_2000_players_as_at_500(tmp_path: Path) -> None:
    create_app({"INSTANCE": tmp_path, "ASYNC_MODE": "threading"})
    small, large = work_per_disconnect(500), work_per_disconnect(2_000)
    assert large / small <= BOUND, (small, large)


def test_a_disconnect_visits_the_table_its_socket_watched_not_every_live_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Tables.disconnected` walked every live table (500 tables × 4,000 sockets leaving at
    once: ~16 s of a held process); now only the tables the socket watched."""
    app = make_app(tmp_path)
    watchers = [person(app, name) for name in ("Иван", "Ёж", "мария", "Пенка 🌸")]
    visited: list[int] = []
    leave = LiveTable.leave

    def counted(live: LiveTable, sid: str) -> None:
        visited.append(live.id)
        leave(live, sid)

    monkeypatch.setattr(LiveTable, "leave", counted)
    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        ids = [open_table(app) for _ in range(60)]
        for table_id in ids:
            live = tables.get(table_id)
            for who in watchers:
                live.join(f"{who.name}@{table_id}", who, None)
        gone = ids[7]
        for who in watchers:
            player = Player(who.id, who.name, False)
            tables.disconnected(player, f"{who.name}@{gone}", still=True)
        assert visited == [gone] * len(watchers)
        assert tables.get(gone).watching.items() == []
        assert all(len(tables.get(t).watching.items()) == len(watchers) for t in ids if t != gone)
        assert len(tables.services.watched) == len(watchers) * (len(ids) - 1)


class Seen(table_store._Hand):
    """A hand in play whose table is counted each time it is read."""

    reads = 0

    def __getattribute__(self, name: str) -> Any:
        if name == "table_id":
            Seen.reads += 1
        return super().__getattribute__(name)


def hands_read_per_answer(db: Database, others: int, prefix: str) -> float:
    """Hands looked at by one «Готов»'s `standing` for 8 players, with `others` tables
    playing a hand of two other players each; one of ours, «Ёж…», paid into one of them,
    so his money is there (C-0.2; docs/rules.md, «Money at one table at a time»)."""
    store = TableStore(db)
    ours = [f"Ёж{prefix}", *(f"Мария {prefix}{i}" for i in range(7))]
    people(db, *ours)
    here = table(db)
    for i in range(others):
        pair = [f"Иван {prefix}{i}", f"Ёж {prefix}{i} 🌸"]
        people(db, *pair)
        store.begin_hand(table(db), doc(), antes(*pair), stacks=False)
    there = table(db)
    store.begin_hand(there, doc(), antes(ours[0]), stacks=False)
    ids = store.user_ids(ours)
    Seen.reads = 0
    answers = 10
    for _ in range(answers):
        money, elsewhere = store.standing(here, ids, stacks=False, practice=False)
        assert elsewhere == {ids[ours[0]]: there} and len(money) == 8
    return Seen.reads / answers


def test_a_ready_answer_costs_the_same_with_400_hands_in_play_as_with_40(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_store, "_Hand", Seen)
    small, large = hands_read_per_answer(db, 40, "a"), hands_read_per_answer(db, 400, "b")
    assert small >= 1, small  # the one hand elsewhere is found by reading it
    assert large / small <= BOUND, (small, large)


def bot(app: Flask, name: str, money: int) -> Person:
    """A bot of the roster as its account is: no password opens it (app/auth/roster.py)."""
    with app.app_context(), get_db().session() as s:
        user = User(name=name, password_hash=BOT_HASH)
        s.add(user)
        s.flush()
        assert user.id is not None
        ledger.grant(s, user, money, "test")
        return Person(user.id, name)


def test_a_bot_leaving_snapshots_no_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When a bot leaves, the house takes back what idle bots hold (`BotSeats.return_idle`).
    To learn who sits where it made a whole snapshot of every live table (the hand's views,
    under each table's lock): with 60 tables live it now makes none, and a bot seated at a
    table still keeps his money while an idle one gives his back (docs/rules.md, «Bots»)."""
    app = make_app(tmp_path)
    made: list[int] = []
    snapshot = LiveTable.snapshot

    def counted(live: LiveTable, viewers: Any = ()) -> Any:
        made.append(live.id)
        return snapshot(live, viewers)

    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        ids = [open_table(app) for _ in range(60)]
        seated, idle = bot(app, "Бот Толик", 500), bot(app, "Бот Люба", 300)
        ivan = person(app, "Иван", 100)
        live = tables.get(ids[30])
        for sid, who in (("толик", seated), ("иван", ivan)):
            live.join(sid, who, None)
            assert live.sit(who, None, None)
        for table_id in ids:
            tables.get(table_id)
        books: BotSeats = app.extensions[BOTS]
        books.serving = True
        monkeypatch.setattr(LiveTable, "snapshot", counted)
        books.return_idle()
        assert made == []
        assert balance(app, seated) == 500 and balance(app, idle) == 0
        assert balance(app, ivan) == 100
