"""A player's request for money (app/admin/requests.py): «Попросить фишки».

It waits for an administrator, who approves it (an ordinary grant: a ledger row whose reason
names the request, `entry_id`) or declines it; the player may have one waiting at a time.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from .db import utcnow

WAITING = "waiting"
APPROVED = "approved"
DECLINED = "declined"


class MoneyRequest(SQLModel, table=True):
    __tablename__ = "money_requests"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    amount: int
    # The table he asked from (where he is short of the minimum), if any.
    table_id: int | None = Field(default=None, foreign_key="tables.id")
    status: str = Field(default=WAITING, index=True, max_length=16)
    created: datetime = Field(default_factory=utcnow)
    answered: datetime | None = None
    answered_by: str = Field(default="", max_length=64)
    entry_id: int | None = Field(default=None, foreign_key="ledger.id")
