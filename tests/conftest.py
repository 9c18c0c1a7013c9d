"""Fixtures for every test folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app import migrations
from app.models import Database


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    """A fresh, migrated SQLite database per test: which rows and ids exist is part of it.
    (A module that shares one database among its tests defines its own `db`.)"""
    database = Database(f"sqlite:///{tmp_path / 'svara.db'}")
    migrations.upgrade(database.engine)
    yield database
    database.dispose()
