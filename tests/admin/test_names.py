"""Names as people write them (app/names.py): one key per account for every `svara admin`
command, look-alikes and bots' names refused with status 2 (never a traceback), and the
migration that brings the key to an older database, stopping where its accounts collide."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import inspect, text
from sqlmodel import create_engine

from app import migrations
from app.auth.service import AccountError, authenticate, check_name
from app.names import mixed_scripts, name_key, shown, skeleton

from .conftest import PASSWORD, Admin


@pytest.mark.parametrize(
    ("spellings", "key"),
    [
        (["Иван", "иван", "ИВАН", "иВаН"], "иван"),
        (["Ёж", "ёж", "ЁЖ", "Е\u0308ж"], "ёж"),  # Ё written as Е + combining diaeresis
        (["Ъгъл", "ЪГЪЛ", "ъгъл"], "ъгъл"),  # Bulgarian
        (["Ivan", "IVAN", "Ｉｖａｎ", "ｉｖａｎ"], "ivan"),  # full-width letters
    ],
)
def test_one_key_for_every_spelling(spellings: list[str], key: str) -> None:
    assert {name_key(s) for s in spellings} == {key}


def test_look_alikes_share_a_skeleton_and_mixed_scripts_are_seen() -> None:
    latin, cyrillic = "Anna", "Аnnа"  # Cyrillic А and а around Latin nn
    assert name_key(latin) != name_key(cyrillic)
    assert skeleton(latin) == skeleton(cyrillic)
    assert mixed_scripts(cyrillic) and not mixed_scripts(latin)
    assert skeleton("Асе") == skeleton("Ace")  # all Cyrillic against all Latin
    assert skeleton("Иван") != skeleton("Ivan")  # different letters are different names
    assert not mixed_scripts("Мария_2") and not mixed_scripts("山田たろう")  # UTS #39 mixes
    assert shown("Ｉｖａｎ") == "Ivan"  # stored at the usual width, the case kept


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=30))
def test_any_text_gets_a_key_or_a_clear_refusal(text: str) -> None:
    """A login compares the key of whatever was typed; a registration refuses with an
    AccountError (its words' key), never anything else (an empty part, a control, …)."""
    assert isinstance(name_key(text), str) and isinstance(skeleton(text), str)
    try:
        assert check_name(text, 24)
    except AccountError as refused:
        assert refused.key.startswith("account.name_")


def test_every_command_finds_a_cyrillic_name_whatever_its_case(admin: Admin) -> None:
    """`balance grant Иван` found no user before: SQLite's lower() folds only ASCII."""
    made = admin.user("Иван")
    assert made["name"] == "Иван"
    assert admin.ok("balance", "grant", "Иван", "500", "--reason", "cash")["balance"] == 500
    assert admin.ok("balance", "grant", "ИВАН", "20", "--reason", "cash")["balance"] == 520
    assert admin.ok("balance", "show", "иван")["balance"] == 520
    assert admin.ok("user", "show", "иВаН")["name"] == "Иван"
    assert admin.ok("user", "set-password", "иван", "--password", "новый пароль")["user"] == "Иван"
    assert admin.ok("user", "ban", "ИВАН")["banned"] is True
    assert admin.ok("user", "unban", "иван")["banned"] is False
    assert admin.ok("user", "admin", "ИВАН", "--grant")["admin"] is True
    admin.user("Ёж")
    assert admin.ok("balance", "grant", "ёж", "7", "--reason", "cash")["user"] == "Ёж"
    assert [u["name"] for u in admin.ok("user", "list")] == ["Ёж", "Иван"]
    with admin.db.session() as s:
        assert authenticate(s, "иван", "новый пароль") is not None
        assert authenticate(s, "Ｉван", "новый пароль") is None  # a Latin-width I is not И


@pytest.mark.parametrize(
    ("taken", "name", "match"),
    [
        ("Иван", "Иван", "taken"),  # the same again: a 500 / IntegrityError before
        ("Иван", "иван", "taken"),  # a second account that got «Иван»'s grants
        ("Иван", "ИВАН", "taken"),
        ("Ёж", "ёж", "taken"),
        ("Ъгъл", "ЪГЪЛ", "taken"),
        ("Ivan", "Ｉｖａｎ", "taken"),
        ("Anna", "Аnnа", "mixes alphabets"),  # Cyrillic а beside Latin n
        ("Ace", "Асе", "looks like the taken 'Ace'"),  # all Cyrillic, drawn the same
        ("Ivan", "lvan", "looks like"),  # a small L for a capital I
        (None, "Ивaн", "mixes alphabets"),
        (None, "Иван😀", "letters"),
        (None, "😀😀", "letters"),
        (None, "Гэри", "reserved"),  # the practice bot (app/bots/seats.py)
        (None, "гэри", "reserved"),
        (None, "ГЭРИ", "reserved"),
        (None, "HOUSE", "reserved"),
    ],
)
def test_taken_reserved_and_look_alike_names_are_refused(
    admin: Admin, taken: str | None, name: str, match: str
) -> None:
    if taken is not None:
        admin.user(taken)
    result = admin.refused("user", "create", name, "--password", PASSWORD, match=match)
    assert "Traceback" not in result.output


def _old_database(path: Path, names: list[str]) -> str:
    """A database at revision 0005 (before keys) holding these accounts, with balances."""
    url = f"sqlite:///{path}"
    engine = create_engine(url)
    command.upgrade(migrations.alembic_config(engine), "0005")
    with engine.begin() as connection:
        for i, name in enumerate(names, start=1):
            connection.execute(
                text(
                    "INSERT INTO users (id, name, password_hash, is_admin, banned, created, "
                    "session_epoch) VALUES (:id, :name, '-', 0, 0, '2026-11-0' || :id, 0)"
                ),
                {"id": i, "name": name},
            )
            connection.execute(
                text(
                    "INSERT INTO accounts (kind, user_id, balance, created) "
                    "VALUES ('user', :id, :balance, '2026-11-01')"
                ),
                {"id": i, "balance": 100 * i},
            )
    engine.dispose()
    return url


def test_the_migration_fills_the_keys(tmp_path: Path) -> None:
    engine = create_engine(_old_database(tmp_path / "svara.db", ["Иван", "Ёж", "Мария"]))
    migrations.upgrade(engine)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT name, name_key FROM users ORDER BY id")).all()
    assert [tuple(r) for r in rows] == [("Иван", "иван"), ("Ёж", "ёж"), ("Мария", "мария")]
    assert {"ix_users_name_key"} <= {i["name"] for i in inspect(engine).get_indexes("users")}
    engine.dispose()


def test_the_migration_stops_on_colliding_accounts_and_says_what_to_do(tmp_path: Path) -> None:
    """No silent merge: the upgrade lists the accounts that share a key, changes nothing, and
    prints the renames that let it go on; after them it does."""
    database = tmp_path / "svara.db"
    url = _old_database(database, ["Иван", "Мария", "иван", "Ёж", "ИВАН", "ёж"])
    engine = create_engine(url)
    with pytest.raises(migrations.UpgradeStopped) as stopped:
        migrations.upgrade(engine)
    message = str(stopped.value)
    assert "«Иван» (id 1, since 2026-11-01, balance 100)" in message
    assert "«иван» (id 3, since 2026-11-03, balance 300)" in message
    assert "«ИВАН» (id 5" in message and "«Ёж» (id 4" in message and "«ёж» (id 6" in message
    assert "Мария" not in message
    assert f"sqlite3 {database}" in message
    assert migrations.current(engine) == "0005"  # nothing changed
    assert "name_key" not in {c["name"] for c in inspect(engine).get_columns("users")}
    renames = [line.strip() for line in message.splitlines() if line.strip().startswith("UPDATE")]
    assert len(renames) == 3  # every account but the first of each group
    with engine.begin() as connection:
        for statement in renames:
            connection.execute(text(statement))
    migrations.upgrade(engine)
    assert migrations.current(engine) == migrations.head()
    with engine.connect() as connection:
        names = connection.execute(text("SELECT name FROM users ORDER BY id")).scalars().all()
    assert names == ["Иван", "Мария", "иван_3", "Ёж", "ИВАН_5", "ёж_6"]
    engine.dispose()


def test_the_cli_on_a_colliding_database_prints_the_message_not_a_traceback(
    tmp_path: Path,
) -> None:
    instance = tmp_path / "instance"
    instance.mkdir(mode=0o700)  # owner-only as an instance is: no mode warning comes first
    _old_database(instance / "svara.db", ["Иван", "иван"])
    (instance / "svara.db").chmod(0o600)
    svara = str(Path(sys.executable).with_name("svara"))
    where = ["--instance", str(instance)]
    for args in (["admin", *where, "user", "list"], ["serve", *where, "--port", "0"]):
        result = subprocess.run([svara, *args], capture_output=True, text=True, timeout=60)
        assert result.returncode == 1, result
        assert result.stderr.startswith("svara: the database cannot be upgraded"), result.stderr
        assert "UPDATE users SET name = 'иван_2' WHERE id = 2;" in result.stderr
        assert "Traceback" not in result.stderr
