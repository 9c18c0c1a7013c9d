"""admin notices, server beats, table bots

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 18:29:45.577261
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notices",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "server_beats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("host", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("started", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("server_beats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_server_beats_seen"), ["seen"], unique=False)

    with op.batch_alter_table("tables", schema=None) as batch_op:
        # Existing tables have no bots.
        batch_op.add_column(sa.Column("bots", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_column("bots")

    with op.batch_alter_table("server_beats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_server_beats_seen"))

    op.drop_table("server_beats")
    op.drop_table("notices")
