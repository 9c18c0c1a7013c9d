"""The seams between the table runtime and the features built on it, in-process: the chat
settings shared by the lobby and the tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from app import create_app
from app.lobby.service import create_table, get_lobby
from app.models import get_db
from app.tables import EXTENSION as TABLES
from app.tables.chat import Chat, ChatRefused
from app.tables.registry import Tables


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
