"""The schema's history (Alembic over `SQLModel.metadata`), shipped inside the package so that
`svara serve` creates or upgrades any instance's database on start.

A change to app/models needs a new revision: `.venv/bin/python -m app.migrations revision
"what changed"` writes one by comparing the models with a scratch database at head;
tests/server/models/test_schema.py fails while the models and the revisions disagree.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

HERE = Path(__file__).resolve().parent


def alembic_config(engine: Engine) -> Config:
    """A config that runs the revisions here on `engine` (no alembic.ini needed)."""
    config = Config()
    config.set_main_option("script_location", str(HERE))
    config.attributes["engine"] = engine
    return config


def head() -> str:
    """The newest revision shipped."""
    config = Config()
    config.set_main_option("script_location", str(HERE))
    revision = ScriptDirectory.from_config(config).get_current_head()
    assert revision is not None, "no migration revisions shipped"
    return revision


def current(engine: Engine) -> str | None:
    """The revision the database is at (None: never migrated)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine) -> None:
    """Create the schema or bring it to head; does nothing when already there."""
    command.upgrade(alembic_config(engine), "head")


class UpgradeStopped(SystemExit):
    """A revision that cannot go on without the administrator (its message says what to do).
    A SystemExit, so `svara serve` and `svara admin` stop with the message and status 1
    rather than a traceback; the revision's transaction is rolled back."""

    def __init__(self, message: str):
        super().__init__(f"svara: {message}")
