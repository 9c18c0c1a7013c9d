"""`svara admin backup` during play and `svara admin restore` into a new instance
(docs/hosting.md «Backups»): the restored books verify, with the same users and balances."""

from __future__ import annotations

import fcntl
import json
import random
import stat
import subprocess
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from app.backup import LOCK_FILE
from cli.main import svara
from tests.server.conftest import SVARA, WAIT, Browser, Server, start_server
from tests.server.tablekit import (
    SCALE,
    Player,
    balances,
    decide,
    new_table,
    play_hand,
    seat_and_ready,
    whose_turn,
)

NAMES = ["Иван", "ёж", "мАрия"]


def cli(instance: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`svara admin --instance DIR …` as the host types it, in its own process."""
    return subprocess.run(
        [SVARA, "admin", "--instance", str(instance), *args],
        capture_output=True,
        text=True,
        timeout=2 * WAIT,
        check=False,
    )


def ok(instance: Path, *args: str) -> Any:
    done = cli(instance, *args, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def users(instance: Path) -> list[str]:
    return sorted(u["name"] for u in ok(instance, "user", "list"))


def test_backup_during_play_restores_into_a_new_instance(tmp_path: Path) -> None:
    """Backed up with a hand in play (antes in the pot), while the server runs; a restore
    there is refused; restored into a new folder, the books verify with the same users and
    balances, and a server on it lets the players in."""
    server = start_server(tmp_path / "live", "eventlet", SVARA_TIMER_SCALE=str(SCALE))
    table = new_table(server, "classic")
    players = [Player(server, table, name) for name in NAMES]
    copy = tmp_path / "svara-backup.db"
    try:
        seat_and_ready(server, players, 500)
        play_hand(players, random.Random(3))
        for p in players:
            assert p.call("table:ready") == {"ok": True}
        actor = whose_turn(players)
        decide(players, actor, do=actor.hand["legal"][0]["do"])  # type: ignore[index]
        made = ok(server.instance, "backup", str(copy))
        assert made["backup"] == str(copy)
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600
        refused = cli(server.instance, "restore", str(copy), "--yes")
        assert refused.returncode == 2 and "a server is running" in refused.stderr
        kept = users(server.instance)
        # The balances the backup holds, read from a copy of it: the hand goes on at the
        # live table meanwhile (its turns lapse), so the live balances may have moved since.
        held = tmp_path / "held"
        held.mkdir()
        (held / "svara.db").write_bytes(copy.read_bytes())
        before = balances(Server(server.process, held, "eventlet"), NAMES)
    finally:
        for p in players:
            p.close()
        server.stop()

    fresh = tmp_path / "restored"
    assert ok(fresh, "restore", str(copy))["users"] == len(kept)
    assert ok(fresh, "ledger", "verify")["ok"] is True
    assert users(fresh) == kept
    restored = Server(server.process, fresh, "eventlet")
    assert balances(restored, NAMES) == before
    again = start_server(fresh, "threading")
    try:  # their passwords came along: a player logs in on the restored instance
        # (by a name without capitals: SQLite's lower() folds ASCII only, app/auth/service.py)
        assert Browser(again.url).login(NAMES[1], "correct horse").status_code == 302
    finally:
        again.stop()
    # The hand that was in play is refunded at that start (C-8.5): the books still balance.
    assert ok(fresh, "ledger", "verify")["ok"] is True


def run(instance: Path, *args: str, **env: str) -> tuple[int, str]:
    result = CliRunner().invoke(svara, ["admin", "--instance", str(instance), *args], env=env)
    return result.exit_code, result.stderr


def test_what_backup_and_restore_refuse(tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    assert run(instance, "backup", str(tmp_path / "b.db")) == (
        2,
        f"svara: no database at {instance / 'svara.db'}\n",
    )
    status, said = run(
        instance,
        "backup",
        str(tmp_path / "b.db"),
        SVARA_DATABASE_URL='"postgresql+psycopg://svara:secret@db.local/svara"',
    )
    assert status == 2 and "pg_dump --format=custom" in said and "pg_restore" in said
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    status, said = run(instance, "restore", str(junk), "--yes")
    assert status == 2 and "is not a SQLite database" in said
    assert not (instance / "svara.db").exists()
    # Over an existing database, without --yes: the file is refused before the host is
    # asked whether to replace his database by it (nothing is asked, nothing changes).
    assert run(instance, "user", "create", "Иван", "--password", "пароль-Ивана-1")[0] == 0
    kept = (instance / "svara.db").read_bytes()
    asked = CliRunner().invoke(
        svara, ["admin", "--instance", str(instance), "restore", str(junk)], input="y\n"
    )
    assert asked.exit_code == 2 and "is not a SQLite database" in asked.stderr
    assert "Replace" not in asked.output
    assert (instance / "svara.db").read_bytes() == kept
    status, said = run(instance, "backup", str(tmp_path / "no-folder" / "b.db"))
    assert status == 2 and "no folder" in said


def test_a_server_does_not_start_during_a_restore(tmp_path: Path) -> None:
    """The restore's exclusive lock (app/backup.py) keeps `svara serve` from migrating a
    database that is being replaced."""
    tmp_path.mkdir(exist_ok=True)
    with (tmp_path / LOCK_FILE).open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(
            [SVARA, "serve", "--port", "0", "--instance", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=2 * WAIT,
            check=False,
        )
    assert done.returncode == 1 and "a restore is running" in done.stderr
    assert not (tmp_path / "svara.db").exists()
