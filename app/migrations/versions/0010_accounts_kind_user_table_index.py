"""accounts (kind, user_id, table_id): a table's reads find its players' accounts by user

A table asks at every «Готов» and hand's start where else its players' money is
(`ledger.stacks_elsewhere`) and what they play from (`ledger.balances`). With the index on
`kind` alone SQLite read every stack account ever opened, of every user, empty ones too: a
cost that grew with the club's history. This index finds the users asked.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07 03:30:00
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.create_index(
            "ix_accounts_kind_user_id_table_id", ["kind", "user_id", "table_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.drop_index("ix_accounts_kind_user_id_table_id")
