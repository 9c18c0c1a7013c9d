"""Tables, custom variants and hands as stored. The live table runtime (app/tables*) reads and
extends these; a new column needs a new Alembic revision in app/migrations/versions/."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from .db import utcnow

PLAYING = "playing"
FINISHED = "finished"
CANCELLED = "cancelled"


class CustomVariant(SQLModel, table=True):
    """A named variant made from a preset and rule overrides (`svara admin variant create`)."""

    __tablename__ = "variants"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True, max_length=64)
    base: str = Field(max_length=64)
    rules: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created: datetime = Field(default_factory=utcnow)


class Table(SQLModel, table=True):
    """A table: which variant (a preset or a custom variant's name) with which overrides."""

    __tablename__ = "tables"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64)
    variant: str = Field(max_length=64)
    rules: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seats: int
    private: bool = False
    created_by: int | None = Field(default=None, foreign_key="users.id")
    created: datetime = Field(default_factory=utcnow)
    closed: bool = Field(default=False, index=True)
    bots: int = 0  # seats the server fills with bots (`svara admin table create --bots N`)
    # Seats taken and queue length as the process that plays the table last told (the
    # lobby of another process lists them from here; docs/hosting.md, «Beyond one machine»).
    seated: int = 0
    queued: int = 0


class HandRecord(SQLModel, table=True):
    """A hand played (or in play) at a table: its status, action log and hand file
    (hand-file.md). While the hand is in play `hand_file` is the hand so far, rewritten with
    each applied action, so a restart can replay or refund it (C-8.5, app/tables/store.py).
    Its pot is an account (app/ledger.py)."""

    __tablename__ = "hands"

    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="tables.id", index=True)
    started: datetime = Field(default_factory=utcnow)
    finished: datetime | None = None
    status: str = Field(default=PLAYING, index=True, max_length=16)
    hand_file: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    actions: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
