"""ledger.actor, money_requests: who moved money by hand, and players' requests for money

A grant's row names who made it (the administrator on the host's page, `svara admin` on the
command line); rows written before say nobody (""). A player short of a table's minimum asks
for money (app/admin/requests.py) and an administrator approves or declines.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 21:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ledger", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "actor",
                sqlmodel.sql.sqltypes.AutoString(length=64),
                nullable=False,
                server_default="",
            )
        )
    op.create_table(
        "money_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answered", sa.DateTime(timezone=True), nullable=True),
        sa.Column("answered_by", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["entry_id"], ["ledger.id"]),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("money_requests", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_money_requests_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_money_requests_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("money_requests", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_money_requests_user_id"))
        batch_op.drop_index(batch_op.f("ix_money_requests_status"))
    op.drop_table("money_requests")
    with op.batch_alter_table("ledger", schema=None) as batch_op:
        batch_op.drop_column("actor")
