"""The stored data (SQLModel). Importing this package registers every table on
`SQLModel.metadata`, which Alembic (app/migrations) compares against."""

from app.engine.hand import HOUSE, POT  # the engine's parties are also account kinds

from .accounts import STACK, USER, Account, LedgerEntry, User
from .chat import ChatLine
from .db import Database, get_db, utcnow
from .notices import Notice, ServerBeat
from .requests import MoneyRequest
from .tables import (
    CANCELLED,
    FINISHED,
    PLAYING,
    CustomVariant,
    HandRecord,
    Table,
    TableGuest,
)

__all__ = [
    "CANCELLED",
    "FINISHED",
    "HOUSE",
    "PLAYING",
    "POT",
    "STACK",
    "USER",
    "Account",
    "ChatLine",
    "CustomVariant",
    "Database",
    "HandRecord",
    "LedgerEntry",
    "MoneyRequest",
    "Notice",
    "ServerBeat",
    "Table",
    "TableGuest",
    "User",
    "get_db",
    "utcnow",
]
