"""The seams between the table runtime and the features built on it, in-process: the chat
settings shared by the lobby and the tables, the registry's close for the admin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from app import create_app
from app.admin.tables import close_table
from app.lobby.service import create_table, get_lobby
from app.models import Table, get_db
from app.tables import EXTENSION as TABLES
from app.tables.chat import Chat, ChatRefused
from app.tables.registry import Tables
from app.tables.runtime import TableError


def make_app(instance: Path, **config: Any) -> Flask:
    return create_app({"INSTANCE": instance, "ASYNC_MODE": "threading", **config})


def open_table(app: Flask, variant: str = "classic") -> int:
    with app.app_context(), get_db().session() as s:
        table = create_table(s, "Стол", variant)
        assert table.id is not None
        return table.id


def test_the_lobby_and_every_table_bound_their_chat_by_the_same_settings(
    tmp_path: Path,
) -> None:
    """`Chat.from_config`: CHAT_KEEP lines kept, CHAT_MAX_LENGTH characters, CHAT_RATE lines
    per CHAT_RATE_WINDOW seconds — in the lobby and at a table alike (C-8.4)."""
    app = make_app(tmp_path, CHAT_KEEP=2, CHAT_MAX_LENGTH=5, CHAT_RATE=3, CHAT_RATE_WINDOW=60)
    table_id = open_table(app)
    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        chats = [get_lobby().chat, tables.get(table_id).chat, Chat.from_config(app.config)]
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
    app = make_app(tmp_path)
    table_id = open_table(app)
    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        first = tables.get(table_id)

        def broken() -> None:
            raise RuntimeError("disk full")

        with pytest.raises(RuntimeError, match="disk full"):
            tables.close(table_id, "closing", broken)
        again = tables.get(table_id)  # the row is still open: a fresh live table
        assert again is not first and tables.find(table_id) is again
