"""Users, their money accounts and the ledger (C-0.1, C-0.3).

An account holds money: a user's balance, the house (rake), a hand's pot in play, a player's
stack at a table (the stack variants). Every change of an account's balance is a ledger row
written in the same transaction (app/ledger.py), so a balance is always the sum of its rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, event
from sqlmodel import Field, SQLModel

from app.names import name_key, skeleton

from .db import utcnow

USER = "user"
STACK = "stack"


class User(SQLModel, table=True):
    __tablename__ = "users"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True, max_length=64)  # as its owner writes it
    # What lookups compare, and what look-alikes share (app/names.py): kept by `_derive`.
    name_key: str = Field(default="", unique=True, index=True)
    name_skeleton: str = Field(default="", index=True)
    password_hash: str
    is_admin: bool = Field(default=False, index=True)  # the hosts, read by every table page
    banned: bool = False
    # Sessions carry the epoch they began in; raising it (logout, a new password) ends all
    # of the user's sessions, even copies of the cookie (app/auth/service.py).
    session_epoch: int = 0
    created: datetime = Field(default_factory=utcnow)


@event.listens_for(User, "before_insert")
@event.listens_for(User, "before_update")
def _derive(_mapper: Any, _connection: Any, user: User) -> None:
    """The key and skeleton always follow the name, however a row is written."""
    user.name_key, user.name_skeleton = name_key(user.name), skeleton(user.name)


class Account(SQLModel, table=True):
    """Money in one place. `user_id` is set for a user's balance and stacks, `hand_id` for a
    pot, `table_id` for a stack; the house has none.

    Accounts are found by (kind, user_id, table_id): a table's reads at every «Готов»
    (`ledger.stacks_elsewhere`, `ledger.balances`), a player's or the house's account. The
    composite index keeps each to the users asked, where `kind` alone read every stack ever
    opened; a lookup by its leading columns uses it too
    (https://sqlite.org/queryplanner.html, «Multi-Column Indices»;
    https://www.postgresql.org/docs/current/indexes-multicolumn.html)."""

    __tablename__ = "accounts"
    __table_args__ = (Index("ix_accounts_kind_user_id_table_id", "kind", "user_id", "table_id"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(index=True, max_length=8)
    user_id: int | None = Field(default=None, foreign_key="users.id", index=True)
    table_id: int | None = Field(default=None, foreign_key="tables.id", index=True)
    hand_id: int | None = Field(default=None, foreign_key="hands.id", index=True)
    balance: int = 0
    created: datetime = Field(default_factory=utcnow)


class LedgerEntry(SQLModel, table=True):
    """One side of one movement of money. The rows of a movement share `movement` and sum to
    zero, except a grant (money entering the system by an admin, C-0.1)."""

    __tablename__ = "ledger"

    id: int | None = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="accounts.id", index=True)
    amount: int
    kind: str = Field(max_length=16)
    movement: str = Field(index=True, max_length=32)
    hand_id: int | None = Field(default=None, foreign_key="hands.id", index=True)
    table_id: int | None = Field(default=None, foreign_key="tables.id", index=True)
    created: datetime = Field(default_factory=utcnow)
    reason: str = ""
    # Who moved the money by hand: the administrator's name for a grant from the host's page
    # (app/admin/web.py), `svara admin` for one from the command line; "" for the game's own.
    actor: str = Field(default="", max_length=64)
