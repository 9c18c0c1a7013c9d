"""tables.invite, table_guests: a private table is reached only through its invite link

Each private table gets its unguessable token (app/lobby/invites.py); whoever follows the
link is kept as the table's guest. Private tables made before get their token here, so their
creators can share them (`svara admin table show`, the lobby's «Закрытые столы»).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 11:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

from app.lobby.invites import new_token

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_guests",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("table_id", "user_id"),
    )
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("invite", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.create_index(batch_op.f("ix_tables_invite"), ["invite"], unique=True)
    bind = op.get_bind()
    private = bind.execute(sa.text("SELECT id FROM tables WHERE private")).scalars().all()
    for table_id in private:
        bind.execute(
            sa.text("UPDATE tables SET invite = :token WHERE id = :id"),
            {"token": new_token(), "id": table_id},
        )


def downgrade() -> None:
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tables_invite"))
        batch_op.drop_column("invite")
    op.drop_table("table_guests")
