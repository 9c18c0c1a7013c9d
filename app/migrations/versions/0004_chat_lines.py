"""chat_lines: the lobby and table chats kept in the database (C-8.4)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 19:33:42.521903
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("author", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("text", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("phrase", sa.Integer(), nullable=True),
        sa.Column("said", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("chat_lines", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chat_lines_table_id"), ["table_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("chat_lines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_lines_table_id"))

    op.drop_table("chat_lines")
