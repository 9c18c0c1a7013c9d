"""Tables, custom variants and hands as stored. The live table runtime (app/tables*) reads and
extends these; a new column needs a new Alembic revision in app/migrations/versions/."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index
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
    # A private table is not listed and is reached only through its invite link, whose
    # token this is (unguessable, app/lobby/invites.py); None for a public table.
    private: bool = False
    invite: str | None = Field(default=None, unique=True, index=True, max_length=64)
    created_by: int | None = Field(default=None, foreign_key="users.id")
    created: datetime = Field(default_factory=utcnow)
    closed: bool = Field(default=False, index=True)
    bots: int = 0  # seats the server fills with bots (`svara admin table create --bots N`)
    # Seats taken and queue length as the process that plays the table last told (the
    # lobby of another process lists them from here; docs/hosting.md, «Beyond one machine»).
    seated: int = 0
    queued: int = 0


class TableGuest(SQLModel, table=True):
    """Who followed a private table's invite link: he may watch it, sit and play there."""

    __tablename__ = "table_guests"

    table_id: int = Field(foreign_key="tables.id", primary_key=True)
    user_id: int = Field(foreign_key="users.id", primary_key=True)
    created: datetime = Field(default_factory=utcnow)


class HandRecord(SQLModel, table=True):
    """A hand played (or in play) at a table: its status, action log and hand file
    (docs/rules/hand-file.md). While the hand is in play `hand_file` is the hand so far,
    rewritten with each applied action, so a restart can replay or refund it (C-8.5,
    app/tables/store.py). Its pot is an account (app/ledger.py)."""

    __tablename__ = "hands"
    # A seat freed asks for the table's hands whose seeds are still kept (app/tables/fair.py
    # `Reveal`): found by this index, not among every hand the table ever played.
    __table_args__ = (Index("ix_hands_table_id_seeds_revealed", "table_id", "seeds_revealed"),)

    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="tables.id", index=True)
    started: datetime = Field(default_factory=utcnow)
    finished: datetime | None = None
    status: str = Field(default=PLAYING, index=True, max_length=16)
    # The shuffle's seeds may be shown to the hand's players (docs/fairness.md, «When the
    # seeds are revealed»): its table closed, or every person of the hand has left it.
    seeds_revealed: bool = False
    hand_file: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    actions: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
