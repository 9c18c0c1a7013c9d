"""The lobby's state: which tables are open (with live occupancy) and the lobby chat.

The table runtime tells the lobby about live seats through two seams::

    lobby = get_lobby()
    lobby.count_live(runtime.occupancy)   # table id -> (seated, queued), C-1.2
    lobby.publish(table_id)               # after seats, queue or the table changed

`publish` may be called from any task (it opens its own database session and emits with
`socketio.emit`), never from inside a database session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import current_app
from sqlalchemy import or_
from sqlmodel import Session, col, select

from app.chat import Chat
from app.engine.games import GAMES
from app.engine.variants import VariantError
from app.extensions import socketio
from app.models import Database, Table, TableGuest
from app.table_rules import PlayableVariants, find_variant

from .invites import Access, invite_path, new_token

EXTENSION = "svara.lobby"
ROOM = "lobby"
TABLE = "lobby:table"
TABLE_CLOSED = "lobby:table_closed"
DEMO_NAME = "Демо"


def demo_variant() -> str:
    """The first game's own preset (app/engine/games.py `MODULES` order)."""
    return next(iter(GAMES))


#: A table's seats taken and queue length if it is live in this process, else None.
Occupancy = Callable[[int], tuple[int, int] | None]


def not_live(table_id: int) -> None:
    """Until a table runtime reports its own, every table is as stored."""
    return None


class Lobby:
    """Open tables as the lobby shows them, and the lobby chat (C-8.4)."""

    def __init__(self, db: Database, chat: Chat):
        self.db = db
        self.chat = chat
        self.occupancy: Occupancy = not_live
        self.access = Access(db)

    def count_live(self, occupancy: Occupancy) -> None:
        """The live seats of the tables this process plays (the table runtime's), over
        what is stored."""
        self.occupancy = occupancy

    def summary(self, variants: PlayableVariants, table: Table) -> dict[str, Any] | None:
        """One table as listed: variant, stakes, seats taken, queue length (None for a table
        whose rules this version refuses: it is not played, so not listed)."""
        assert table.id is not None
        variant = variants(table)
        if variant is None:
            return None
        # Live here, or as the process that plays it last stored (several processes).
        seated, queued = self.occupancy(table.id) or (table.seated, table.queued)
        stakes: dict[str, Any] = {"ante": variant["ante"]}
        if "buy_in_min" in variant.rules:  # the stack variants (S-1.5)
            stakes["buy_in"] = [
                variant["buy_in_min"] * stakes["ante"],
                variant["buy_in_max"] * stakes["ante"],
            ]
        return {
            "id": table.id,
            "name": table.name,
            "variant": table.variant,
            "game": variant.game,
            "stakes": stakes,
            "seats": table.seats,
            "seated": seated,
            "queue": queued,
        }

    def tables(self) -> list[dict[str, Any]]:
        """Every open public table, oldest first."""
        with self.db.reading() as s:
            query = (
                select(Table).where(~col(Table.closed), ~col(Table.private)).order_by(col(Table.id))
            )
            variants = PlayableVariants(s)
            listed = (self.summary(variants, t) for t in s.exec(query).all())
            return [summary for summary in listed if summary is not None]

    def private_tables(self, user_id: int) -> list[dict[str, Any]]:
        """The open private tables the user created or was invited to, with their links."""
        with self.db.reading() as s:
            guest = select(TableGuest.table_id).where(TableGuest.user_id == user_id)
            query = (
                select(Table)
                .where(~col(Table.closed), col(Table.private))
                .where(or_(col(Table.created_by) == user_id, col(Table.id).in_(guest)))
                .order_by(col(Table.id))
            )
            variants = PlayableVariants(s)
            return [
                {**summary, "invite": invite_path(t.invite or ""), "mine": t.created_by == user_id}
                for t in s.exec(query).all()
                if (summary := self.summary(variants, t)) is not None
            ]

    def publish(self, table_id: int) -> None:
        """Tell the lobby that a table changed or closed. Never a word of a private one: it
        was never listed, and its id in the lobby would say that it exists."""
        with self.db.reading() as s:
            table = s.get(Table, table_id)
            if table is not None and table.private:
                return
            listed = table is not None and not table.closed
            summary = (
                self.summary(PlayableVariants(s), table) if listed and table is not None else None
            )
        if summary is None:
            socketio.emit(TABLE_CLOSED, {"id": table_id}, to=ROOM)
        else:
            socketio.emit(TABLE, summary, to=ROOM)


def create_table(
    s: Session,
    name: str,
    variant: str,
    *,
    seats: int | None = None,
    private: bool = False,
    rules: dict[str, Any] | None = None,
    created_by: int | None = None,
) -> Table:
    """A new table; VariantError if the variant, seats or rules are not valid."""
    name = " ".join(name.split())
    if not 1 <= len(name) <= 64:
        raise VariantError("a table name has 1 to 64 characters")
    overrides = dict(rules or {})
    if seats is not None:
        overrides["seats"] = seats
    checked = find_variant(s, variant, overrides)
    table = Table(
        name=name,
        variant=variant,
        rules={k: v for k, v in overrides.items() if k != "seats"},
        seats=checked["seats"],
        private=private,
        invite=new_token() if private else None,
        created_by=created_by,
    )
    s.add(table)
    s.flush()
    return table


def ensure_demo_table(s: Session) -> Table | None:
    """On a database without tables, open the demo table of the first game (first start)."""
    if s.exec(select(Table.id)).first() is not None:
        return None
    return create_table(s, DEMO_NAME, demo_variant())


def get_lobby() -> Lobby:
    return current_app.extensions[EXTENSION]
