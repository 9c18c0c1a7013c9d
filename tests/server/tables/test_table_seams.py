"""The seams between the table runtime and the features built on it, in-process: the chat
settings shared by the lobby and the tables, the registry's close for the admin, and what
the bots use — a watcher served by a listener, rules changed between hands, the practice
chips that need no balance."""

from __future__ import annotations

import copy
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from app import create_app, ledger
from app.admin.tables import close_table
from app.auth.presence import Player
from app.chat import Chat, ChatRefused
from app.engine.hand import Action, Hand
from app.lobby.service import create_table, get_lobby
from app.models import Table, User, get_db
from app.tables import EXTENSION as TABLES
from app.tables import view
from app.tables.model import CLOSED, PLAYING, READY, Person, TableError
from app.tables.registry import Tables
from app.tables.runtime import LiveTable


def make_app(instance: Path, **config: Any) -> Flask:
    return create_app({"INSTANCE": instance, "ASYNC_MODE": "threading", **config})


def open_table(app: Flask, variant: str = "classic") -> int:
    with app.app_context(), get_db().session() as s:
        table = create_table(s, "Стол", variant)
        assert table.id is not None
        return table.id


def person(app: Flask, name: str, money: int = 0) -> Person:
    """A user (no password: he never logs in here) with `money` granted to his balance."""
    with app.app_context(), get_db().session() as s:
        user = User(name=name, password_hash="-")
        s.add(user)
        s.flush()
        assert user.id is not None
        if money:
            ledger.grant(s, user, money, "test")
        else:
            ledger.user_account(s, user.id)
        return Person(user.id, name)


def balance(app: Flask, who: Person) -> int:
    with app.app_context(), get_db().session() as s:
        return ledger.user_balance(s, who.id)


def test_the_lobby_and_every_table_bound_their_chat_by_the_same_settings(
    tmp_path: Path,
) -> None:
    """`Chat.from_config`: CHAT_KEEP lines kept, CHAT_MAX_LENGTH characters, CHAT_RATE lines
    per CHAT_RATE_WINDOW seconds — in the lobby and at a table alike (C-8.4)."""
    app = make_app(tmp_path, CHAT_KEEP=2, CHAT_MAX_LENGTH=5, CHAT_RATE=3, CHAT_RATE_WINDOW=60)
    table_id, other_id = open_table(app), open_table(app)
    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        chats = [
            get_lobby().chat,
            tables.get(table_id).chat,
            Chat.from_config(app.config, get_db(), other_id),
        ]
    for chat in chats:
        with pytest.raises(ChatRefused, match="longer than 5"):
            chat.say("anna", "привет")
        for text in ("раз", "два", "три"):
            chat.say("anna", text)
        with pytest.raises(ChatRefused, match="at most 3 in 60 s"):
            chat.say("anna", "ещё")
        assert [line["text"] for line in chat.recent()] == ["два", "три"]


def test_a_table_being_closed_is_never_loaded_again(tmp_path: Path) -> None:
    """`Tables.close`: a `get` that comes while the close is still writing the database (the
    row does not say closed yet) is refused, instead of loading the table afresh."""
    app = make_app(tmp_path)
    table_id = open_table(app)
    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        assert tables.find(table_id) is None  # `find` never loads
        live = tables.get(table_id)
        assert tables.find(table_id) is live
        meanwhile: list[str] = []

        def close_in_db() -> dict[str, Any]:
            with pytest.raises(TableError) as refused:
                tables.get(table_id)
            meanwhile.append(refused.value.code)
            with get_db().session() as s:
                table = s.get(Table, table_id)
                assert table is not None and not table.closed
                return close_table(s, table, "closing")

        done = tables.close(table_id, "closing", close_in_db)
        assert meanwhile == ["not_found"]
        assert done == {"table": table_id, "cancelled_hands": [], "returned_stacks": {}}
        assert tables.find(table_id) is None and live not in tables.live()
        with pytest.raises(TableError, match=f"no open table {table_id}"):
            tables.get(table_id)


def test_a_close_that_fails_leaves_the_table_to_be_loaded_again(tmp_path: Path) -> None:
    """…and its watcher's socket, closed before that, leaves nothing behind in the index of
    who watches what (`Tables.disconnected`)."""
    app = make_app(tmp_path)
    table_id = open_table(app)
    ivan = person(app, "Иван")
    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        first = tables.get(table_id)
        first.join("sid-ivan", ivan, None)

        def broken() -> None:
            raise RuntimeError("disk full")

        with pytest.raises(RuntimeError, match="disk full"):
            tables.close(table_id, "closing", broken)
        assert tables.services.watched.tables("sid-ivan") == [table_id]
        tables.disconnected(Player(ivan.id, ivan.name, False), "sid-ivan", still=False)
        assert tables.services.watched.tables("sid-ivan") == []
        again = tables.get(table_id)  # the row is still open: a fresh live table
        assert again is not first and tables.find(table_id) is again


def test_a_listener_gets_its_watchers_events_instead_of_socketio(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`LiveTable.join(..., listener)`: the bots' watcher gets its own state (never another
    player's), the chat and `table:closed` in-process; nothing for it reaches Socket.IO, and
    after it leaves nothing reaches it."""
    app = make_app(tmp_path)
    table_id = open_table(app)
    anna, bot = person(app, "anna", 100), person(app, "Бот Вася", 100)
    emitted: list[tuple[str, str, dict[str, Any]]] = []
    heard: list[tuple[str, dict[str, Any]]] = []
    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        monkeypatch.setattr(
            tables.services, "emit", lambda event, data, to: emitted.append((to, event, data))
        )
        live = tables.get(table_id)
        live.join("anna-socket", anna, None)
        live.join("bot:1", bot, None, lambda event, data: heard.append((event, data)))
        live.sit(anna, None, None)
        live.sit(bot, None, None)
        assert [(to, event) for to, event, _ in emitted] == [("anna-socket", "table:state")] * 2
        assert [event for event, _ in heard] == ["table:state"] * 2  # both sits
        assert {data["you"]["name"] for _, _, data in emitted} == {"anna"}
        assert {data["you"]["name"] for _, data in heard} == {"Бот Вася"}
        live.say("anna-socket", "привет", None)
        assert heard[-1][0] == "table:chat" and heard[-1][1]["text"] == "привет"
        live.leave("bot:1")
        count = len(heard)
        live.stand(anna)
        assert len(heard) == count and "Бот Вася" not in live.snapshot().connected
        live.join("bot:1", bot, None, lambda event, data: heard.append((event, data)))
        tables.close(table_id, "closing", lambda: None)
        assert heard[-1] == (CLOSED, {"table": table_id, "reason": "closing"})
        assert emitted[-1] == ("anna-socket", CLOSED, {"table": table_id, "reason": "closing"})
        snap = live.snapshot()
        assert snap.bots == {} and snap.connected == frozenset()


def test_rules_change_between_hands_only_and_stay_with_the_table(tmp_path: Path) -> None:
    """`LiveTable.set_rules` (S-8.2: a bot switches the rake off): refused while a hand is in
    play, which keeps its rules; between hands the table and its stored row both change."""
    app = make_app(tmp_path)
    table_id = open_table(app, "svara32")
    players = [person(app, name, 1000) for name in ("anna", "boris")]
    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        live: LiveTable = tables.get(table_id)
        assert live.set_rules({"bots": True}) is True
        assert live.variant["bots"] is True
        assert live.state_for("anna", [])["info"]["rules"]["bots"] is True
        found = tables.store.table(table_id)
        assert found is not None and found[1]["bots"] is True  # a restart loads it too
        for p in players:
            live.sit(p, None, None)
        for p in players:
            live.answer(p, READY)
        hand = live.play.hand
        assert live.phase == PLAYING and hand is not None
        assert live.set_rules({"dark": False}) is False
        assert live.variant["dark"] is True and hand.variant["dark"] is True
        found = tables.store.table(table_id)
        assert found is not None and found[1]["dark"] is True


def test_practice_chips_need_no_balance_and_never_touch_it(tmp_path: Path) -> None:
    """B-1.4: at a practice table any balance covers the stack (`TableStore.short`), the
    chips are granted and taken back; at another stack table the balance must cover it."""
    app = make_app(tmp_path)
    practice, real = open_table(app, "svara32-practice"), open_table(app, "svara32")
    broke = person(app, "anna")
    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        assert tables.store.short(practice, broke.id, 500) == 0
        assert tables.store.short(real, broke.id, 200) == 200
        with pytest.raises(TableError, match="does not cover a stack of 200"):
            tables.get(real).sit(broke, None, None)
        live = tables.get(practice)
        live.sit(broke, None, None)
        assert live.snapshot().money == {"anna": live.variant["buy_in_min"] * live.variant["ante"]}
        assert balance(app, broke) == 0
        live.stand(broke)
        assert balance(app, broke) == 0 and live.member("anna") is None


def test_a_snapshot_is_copies_and_the_live_hand_never_leaves_the_lock(tmp_path: Path) -> None:
    """A reader outside the lock (the bots, the voice chat) gets copies: no field of a
    snapshot is the live `Hand`, and the views it holds stay as they were while the hand
    goes on; a viewer it was not taken for has no view in it."""
    app = make_app(tmp_path)
    table_id = open_table(app, "svara32")
    ivan, maria = (person(app, name, 1000) for name in ("Иван", "Мария"))
    with app.app_context():
        live: LiveTable = app.extensions[TABLES].get(table_id)
        for p in (ivan, maria):
            live.sit(p, None, None)
        for p in (ivan, maria):
            live.answer(p, READY)
        snap = live.snapshot([ivan.name, None])
        assert not [f.name for f in fields(snap) if isinstance(getattr(snap, f.name), Hand)]
        kept = copy.deepcopy(dict(snap.views))
        actor = snap.views[None]["awaiting"][0]
        legal = live.state_for(actor, [])["hand"]["legal"][0]
        mover = ivan if actor == ivan.name else maria
        live.act(mover, live.version, Action(actor, legal["do"], legal.get("min_to")))
        assert snap.views == kept
        assert live.snapshot([None]).views[None] != kept[None]  # the hand went on, not the copy
        with pytest.raises(KeyError):
            view.state(view.told(snap), snap, maria.name, [])  # not taken for her
