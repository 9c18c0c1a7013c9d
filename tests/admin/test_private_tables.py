"""`svara admin table create --private` and its invite link, and migration 0007 that gives
the private tables of an older database their links (app/lobby/invites.py)."""

from __future__ import annotations

import re
from pathlib import Path

from alembic import command
from sqlalchemy import text
from sqlmodel import create_engine

from app import migrations

from .conftest import Admin

LINK = re.compile(r"/invite/[A-Za-z0-9_-]{22}")


def test_a_private_table_prints_its_link_and_a_public_one_has_none(admin: Admin) -> None:
    made = admin.run("table", "create", "Пятница", "--variant", "classic", "--private")
    assert made.exit_code == 0, made.output
    (printed,) = re.findall(r"^invite: (\S+)$", made.stdout, re.M)
    assert LINK.fullmatch(printed)
    table_id = re.findall(r"^id: (\d+)$", made.stdout, re.M)[0]
    assert admin.ok("table", "show", table_id)["invite"] == printed
    other = admin.ok("table", "create", "Суббота", "--variant", "classic", "--private")
    assert LINK.fullmatch(other["invite"]) and other["invite"] != printed
    assert admin.ok("table", "create", "Открытый", "--variant", "classic")["invite"] is None


def test_the_upgrade_gives_older_private_tables_their_links(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'svara.db'}")
    command.upgrade(migrations.alembic_config(engine), "0006")
    with engine.begin() as connection:
        for name, private in (("Свои", 1), ("Для всех", 0), ("Тоже свои", 1)):
            connection.execute(
                text(
                    "INSERT INTO tables (name, variant, rules, seats, private, created, closed, "
                    "bots, seated, queued) VALUES (:name, 'classic', '{}', 6, :private, "
                    "'2026-11-01', 0, 0, 0, 0)"
                ),
                {"name": name, "private": private},
            )
    migrations.upgrade(engine)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT name, invite FROM tables ORDER BY id")).all()
    (mine, _), (public, none), (also, _) = rows
    assert (mine, public, none, also) == ("Свои", "Для всех", None, "Тоже свои")
    tokens = [invite for _, invite in rows if invite]
    assert len(set(tokens)) == 2 and all(re.fullmatch(r"[A-Za-z0-9_-]{22}", t) for t in tokens)
    engine.dispose()
