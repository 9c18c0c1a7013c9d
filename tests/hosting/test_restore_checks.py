"""`svara admin restore` trusts nothing in the file (docs/hosting.md «Backups»): a backup
whose balances are out of bounds, whose books do not balance, or whose schema is not the
app's own (a trigger that writes grants, a view, a table of its own) is refused with one
line saying why and a non-zero status, before anything is replaced: the instance's database
stays byte for byte what it was. And `svara admin backup FILE` writes only into a file it
created itself, owner-only, never through a link planted at FILE or FILE.partial.

Each backup is the host's own real backup, then edited with sqlite3 as an attacker (or a
damaged disk) would.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest

from .test_backup import cli, ok

MALLORY = "Mallory"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A host's instance with «Иван» (500), «Mallory» (10) and the house, its backup."""
    root = tmp_path_factory.mktemp("restore")
    instance = root / "home"
    for name in ("Иван", MALLORY):
        ok(instance, "user", "create", name, "--password", "correct horse")
    ok(instance, "balance", "grant", "Иван", "500", "--reason", "за пятницу")
    ok(instance, "balance", "grant", MALLORY, "10", "--reason", "welcome")
    good = root / "good.db"
    ok(instance, "backup", str(good))
    return instance, good


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def edited(made: tuple[Path, Path], tmp_path: Path, *sql: str) -> Path:
    """A copy of the good backup with `sql` run on it."""
    bad = tmp_path / "bad.db"
    shutil.copyfile(made[1], bad)
    with sqlite3.connect(bad) as db:
        for statement in sql:
            db.execute(statement)
    return bad


def mallory_account(balance: int) -> tuple[str, str]:
    """Mallory's balance set to `balance`, with a grant row so that it is the sum of its
    rows (only the bounds can tell)."""
    account = (
        "(SELECT a.id FROM accounts a JOIN users u ON u.id = a.user_id "
        f"WHERE u.name = '{MALLORY}' AND a.kind = 'user')"
    )
    return (
        f"INSERT INTO ledger (account_id, amount, kind, movement, created, reason) "
        f"VALUES ({account}, {balance} - 10, 'grant', 'forged', '2026-11-01 20:00:00', 'x')",
        f"UPDATE accounts SET balance = {balance} WHERE id = {account}",
    )


TRIGGER = (
    "CREATE TRIGGER gift AFTER INSERT ON ledger BEGIN "
    "UPDATE accounts SET balance = balance + 600 WHERE user_id = "
    f"(SELECT id FROM users WHERE name = '{MALLORY}'); END"
)
EXTRA_ADMIN = (
    "INSERT INTO users (name, name_key, name_skeleton, password_hash, is_admin, banned, "
    "session_epoch, created) SELECT 'Root2', 'root2', 'root2', password_hash, 1, 0, 0, created "
    f"FROM users WHERE name = '{MALLORY}'"
)

ATTACKS: dict[str, tuple[tuple[str, ...], str]] = {
    "a negative balance": (mallory_account(-5000), "holds -5000, outside 0..1000000000000"),
    "a balance of 2⁶²": (mallory_account(2**62), f"holds {2**62}, outside 0..1000000000000"),
    "an extra admin and a trigger on the ledger": (
        (EXTRA_ADMIN, TRIGGER),
        "the backup has a trigger 'gift' that Svara's schema does not",
    ),
    "a view": (
        ("CREATE VIEW rich AS SELECT * FROM accounts",),
        "has a view 'rich' that Svara's schema does not",
    ),
    "a table of its own": (
        ("CREATE TABLE extra (x)",),
        "has a table 'extra' that Svara's schema does not",
    ),
    "a changed table": (
        ("DROP INDEX ix_ledger_movement",),
        "lacks the index 'ix_ledger_movement' of Svara's schema",
    ),
    "books that do not balance": (
        (
            "UPDATE accounts SET balance = 20 WHERE user_id = "
            f"(SELECT id FROM users WHERE name = '{MALLORY}')",
        ),
        "the backup's books do not balance: account",
    ),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_forged_backup_is_refused_and_the_database_stays(
    made: tuple[Path, Path], tmp_path: Path, attack: str
) -> None:
    instance, _ = made
    sql, reason = ATTACKS[attack]
    bad = edited(made, tmp_path, *sql)
    database = instance / "svara.db"
    before = digest(database)
    refused = cli(instance, "restore", str(bad), "--yes")
    assert refused.returncode != 0, refused.stdout
    assert reason in refused.stderr
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("svara: ")
    assert digest(database) == before
    assert not list(instance.glob(".*partial"))  # the checked copy is gone too


def test_the_hosts_own_backup_restores(made: tuple[Path, Path]) -> None:
    instance, good = made
    ok(instance, "balance", "grant", MALLORY, "5", "--reason", "later")  # after the backup
    assert ok(instance, "restore", str(good), "--yes")["users"] == 2
    assert ok(instance, "ledger", "verify")["ok"] is True
    shown = {u["name"]: u for u in ok(instance, "user", "list")}
    assert set(shown) == {"Иван", MALLORY}


@pytest.mark.parametrize("planted", ["target", "partial"])
def test_backup_writes_only_into_a_file_it_made(
    made: tuple[Path, Path], tmp_path: Path, planted: str
) -> None:
    """A link planted at FILE or FILE.partial (to a file the admin may write, say his
    ~/.bashrc) is never written through; FILE ends up a new owner-only file."""
    instance, _ = made
    victim = tmp_path / "victim"
    victim.write_text("mine\n")
    victim.chmod(0o644)
    target = tmp_path / "nightly.db"
    (target if planted == "target" else tmp_path / "nightly.db.partial").symlink_to(victim)
    ok(instance, "backup", str(target))
    assert victim.read_text() == "mine\n"
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert not target.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    with sqlite3.connect(target) as db:
        assert db.execute("SELECT count(*) FROM users").fetchone()[0] == 2
