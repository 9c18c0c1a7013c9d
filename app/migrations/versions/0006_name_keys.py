"""users.name_key, users.name_skeleton: one name per account whatever its case or width

Every lookup compares the key (app/names.py); the unique index makes a second «иван» beside
«Иван» impossible. Accounts an older version let collide stop the upgrade, listed, with what
to do: nothing is merged silently (docs/hosting.md, «Names»).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 11:40:00
"""

from __future__ import annotations

from collections import defaultdict

import sqlalchemy as sa
from alembic import op

from app.migrations import UpgradeStopped
from app.names import name_key, skeleton

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    users = bind.execute(sa.text("SELECT id, name, created FROM users ORDER BY id")).all()
    by_key: dict[str, list[sa.Row]] = defaultdict(list)
    for user in users:
        by_key[name_key(user.name)].append(user)
    collisions = [group for group in by_key.values() if len(group) > 1]
    if collisions:
        raise UpgradeStopped(collision_report(bind, collisions, set(by_key)))
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name_key", sa.String(), nullable=True))
        batch_op.add_column(sa.Column("name_skeleton", sa.String(), nullable=True))
    for user in users:
        bind.execute(
            sa.text("UPDATE users SET name_key = :key, name_skeleton = :skeleton WHERE id = :id"),
            {"key": name_key(user.name), "skeleton": skeleton(user.name), "id": user.id},
        )
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.alter_column("name_key", existing_type=sa.String(), nullable=False)
        batch_op.alter_column("name_skeleton", existing_type=sa.String(), nullable=False)
        batch_op.create_index("ix_users_name_key", ["name_key"], unique=True)
        batch_op.create_index("ix_users_name_skeleton", ["name_skeleton"], unique=False)


def collision_report(bind: sa.Connection, groups: list[list[sa.Row]], keys: set[str]) -> str:
    """Which accounts share a name, with their balances, and the renames that would let the
    upgrade go on (the first account of each group keeps the name)."""
    lines = [
        "the database cannot be upgraded: these accounts have one name once case and width "
        "are ignored, and a name is now one account's (docs/hosting.md, «Names»):"
    ]
    renames = []
    for group in groups:
        lines.append("  " + " · ".join(_described(bind, user) for user in group))
        for user in group[1:]:
            new = f"{user.name}_{user.id}"
            while name_key(new) in keys:
                new += "_"
            keys.add(name_key(new))
            quoted = new.replace("'", "''")
            renames.append(f"  UPDATE users SET name = '{quoted}' WHERE id = {user.id};")
    url = bind.engine.url
    where = f"sqlite3 {url.database}" if url.get_backend_name() == "sqlite" else "psql"
    lines += [
        "Nothing was changed. Decide who keeps each name and rename the other accounts (their",
        f"balance, history and password stay), for example with {where}:",
        *renames,
        "then start again.",
    ]
    return "\n".join(lines)


def _described(bind: sa.Connection, user: sa.Row) -> str:
    balance = bind.execute(
        sa.text("SELECT balance FROM accounts WHERE kind = 'user' AND user_id = :id"),
        {"id": user.id},
    ).scalar()
    return f"«{user.name}» (id {user.id}, since {str(user.created)[:10]}, balance {balance or 0})"


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_index("ix_users_name_skeleton")
        batch_op.drop_index("ix_users_name_key")
        batch_op.drop_column("name_skeleton")
        batch_op.drop_column("name_key")
