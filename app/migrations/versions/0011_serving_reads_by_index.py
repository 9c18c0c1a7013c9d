"""hands (table_id, seeds_revealed), notices (done), users (is_admin): what serving reads often

Each was a walk over something that grows with the club's history, read while serving:
- a freed seat asks for its table's hands whose seeds are still kept (app/tables/fair.py
  `Reveal`), under the table's lock: SQLite walked every hand the table ever played;
- the running server polls the new notices ten times a second (app/admin/notices.py
  `PENDING`): every notice ever written;
- every table page asks who the hosts are (app/admin/requests.py `hosts`): every user.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07 18:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.create_index(
            "ix_hands_table_id_seeds_revealed", ["table_id", "seeds_revealed"], unique=False
        )
    with op.batch_alter_table("notices", schema=None) as batch_op:
        batch_op.create_index("ix_notices_done", ["done"], unique=False)
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.create_index("ix_users_is_admin", ["is_admin"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_index("ix_users_is_admin")
    with op.batch_alter_table("notices", schema=None) as batch_op:
        batch_op.drop_index("ix_notices_done")
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.drop_index("ix_hands_table_id_seeds_revealed")
