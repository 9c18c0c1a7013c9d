"""hands.seeds_revealed: a hand's shuffle seeds are shown once its table's session ended

The seeds let one compute every card dealt, folded hands too (C-6.2), so they are kept back
until the table closes or every person of the hand has left it (docs/fairness.md, «When the
seeds are revealed»). Hands that ended before showed their seeds at once: they stay shown.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 22:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("seeds_revealed", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.execute("UPDATE hands SET seeds_revealed = true WHERE status <> 'playing'")


def downgrade() -> None:
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.drop_column("seeds_revealed")
