"""Notices: how the admin CLI, another process, reaches a running server (docs/hosting.md).

The CLI writes a `Notice` in the shared database; the serving process polls for new ones
(app/admin/notices.py), applies each to its live state (a grant shown at the table, a ban
closing sockets, a table closed) and writes the outcome back. Each serving process keeps a
`ServerBeat` row fresh, so the CLI knows whether anything is running to answer.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from .db import utcnow


class Notice(SQLModel, table=True):
    """One change for the running server; `done` and `result` are its answer."""

    __tablename__ = "notices"

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=16)
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created: datetime = Field(default_factory=utcnow)
    done: datetime | None = Field(default=None, index=True)  # polled: the new ones
    result: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class ServerBeat(SQLModel, table=True):
    """A serving process's heartbeat: `seen` is refreshed while it polls for notices."""

    __tablename__ = "server_beats"

    id: int | None = Field(default=None, primary_key=True)
    pid: int
    host: str = Field(max_length=255)
    started: datetime = Field(default_factory=utcnow)
    seen: datetime = Field(default_factory=utcnow, index=True)
