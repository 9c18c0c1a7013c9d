"""Chat lines as stored (C-8.4): the lobby's «Общий чат» and each table's chat and quick
phrases. They are written as they are accepted, so the last lines survive a restart; a
closed table's lines stay, though no one can join it to be shown them (app/chat.py)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from .db import utcnow


class ChatLine(SQLModel, table=True):
    """One accepted line; `table_id` None is the lobby. The text is plain, as typed (white
    space collapsed): the page escapes it on display."""

    __tablename__ = "chat_lines"

    id: int | None = Field(default=None, primary_key=True)
    table_id: int | None = Field(default=None, foreign_key="tables.id", index=True)
    author: str = Field(max_length=64)  # the user's name, as shown (User.name)
    text: str
    phrase: int | None = None  # the quick phrase's number (app/chat.py PHRASES)
    said: datetime = Field(default_factory=utcnow)
