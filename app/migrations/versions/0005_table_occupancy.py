"""tables.seated, tables.queued: a table's seats taken and queue as its process last told

With several processes (docs/hosting.md, «Beyond one machine») the lobby of one process lists
the tables another plays; it reads their occupancy from here.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29 22:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.add_column(sa.Column("seated", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("queued", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_column("queued")
        batch_op.drop_column("seated")
