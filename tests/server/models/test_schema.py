"""The schema is Alembic's (app/migrations): created or upgraded on start, and the shipped
revisions describe exactly the models."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlmodel import SQLModel, create_engine

import app.models  # noqa: F401  (every table on SQLModel.metadata)
from app import migrations


def test_the_revisions_describe_exactly_the_models(tmp_path: Path) -> None:
    """A model changed without a new revision (python -m app.migrations revision) fails here."""
    engine = create_engine(f"sqlite:///{tmp_path / 'svara.db'}")
    migrations.upgrade(engine)
    with engine.connect() as connection:
        differences = compare_metadata(
            MigrationContext.configure(connection, opts={"compare_type": True}),
            SQLModel.metadata,
        )
    assert differences == []


def test_upgrade_creates_then_leaves_a_database_at_head(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'svara.db'}")
    assert migrations.current(engine) is None
    migrations.upgrade(engine)
    assert migrations.current(engine) == migrations.head()
    assert set(SQLModel.metadata.tables) <= set(inspect(engine).get_table_names())
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO users (name, name_key, name_skeleton, password_hash, is_admin, "
                "banned, created) VALUES ('kept', 'kept', 'kept', '-', 0, 0, '2026-01-01')"
            )
        )
    migrations.upgrade(engine)  # a restart: nothing to do, nothing lost
    with engine.connect() as connection:
        assert connection.execute(text("SELECT name FROM users")).scalars().all() == ["kept"]


def test_downgrade_to_base_and_back(tmp_path: Path) -> None:
    """The first revision can be undone (batch mode on SQLite), so later ones can build on it."""
    engine = create_engine(f"sqlite:///{tmp_path / 'svara.db'}")
    migrations.upgrade(engine)
    command.downgrade(migrations.alembic_config(engine), "base")
    assert migrations.current(engine) is None
    assert "users" not in inspect(engine).get_table_names()
    migrations.upgrade(engine)
    assert migrations.current(engine) == migrations.head()
