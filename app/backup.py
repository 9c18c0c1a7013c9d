"""Backups of an instance's database (`svara admin backup|restore`, docs/hosting.md «Backups»).

SQLite: a backup is SQLite's online backup API, which copies a consistent snapshot while the
server goes on writing (WAL mode: the copy never blocks the server, and what is still in
`-wal` is in it). A restore goes the same way in the other direction, so the target's `-wal`
and `-shm` stay coherent. PostgreSQL has its own tools (pg_dump / pg_restore); the commands
say how instead of half-doing it.

A restore must not pull the database from under a running server: `svara serve` holds a
shared `flock` on `serve.lock` in the instance folder for as long as it runs (the kernel
drops it when the process ends, however it ends), and a restore takes it exclusively, or
refuses.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import IO

from sqlalchemy.engine import make_url

LOCK_FILE = "serve.lock"
#: Tables a Svara database has (a file without them is not a backup of one).
REQUIRED_TABLES = ("alembic_version", "users", "ledger")


class BackupError(ValueError):
    """A backup or restore that cannot be done; nothing was changed."""


def database_url(instance: str | os.PathLike[str] | None) -> tuple[Path, str]:
    """The instance folder and its DATABASE_URL, from the settings alone (no engine, no
    migration: a restore must not touch the database before it may)."""
    from flask import Flask

    from . import config as settings

    folder = settings.instance_folder(instance)
    app = Flask(__name__, instance_path=str(folder), instance_relative_config=True)
    settings.load(app, {})
    return folder, str(app.config["DATABASE_URL"])


def sqlite_path(url: str) -> Path:
    """The SQLite file of `url`; for another database, how to use its own tools."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        plain = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
        raise BackupError(
            "the database is PostgreSQL: back it up with its own tools while the server runs, "
            f"`pg_dump --format=custom --file=svara.dump '{plain}'`, and restore with the "
            f"servers stopped, `pg_restore --clean --if-exists --dbname='{plain}' svara.dump`"
        )
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        raise BackupError(f"backups of {parsed.get_backend_name()} databases are not supported")
    return Path(parsed.database)


def hold_serving(instance: Path) -> IO[str]:
    """Taken by `svara serve` for as long as it runs (close the file to let go): a restore
    then refuses. BackupError while a restore holds the instance."""
    lock = (instance / LOCK_FILE).open("a")
    try:
        fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise BackupError(
            f"a restore is running on {instance}; start the server after it"
        ) from None
    return lock


@contextmanager
def _exclusive(instance: Path) -> Iterator[None]:
    with (instance / LOCK_FILE).open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BackupError(
                f"a server is running on {instance}: stop it before restoring "
                "(a backup needs no stop)"
            ) from None
        yield


def _open_existing(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise BackupError(f"no database at {path}")
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as failure:
        raise BackupError(f"{path} is not a SQLite database: {failure}") from None
    missing = [t for t in REQUIRED_TABLES if t not in names]
    if missing:
        connection.close()
        raise BackupError(f"{path} is not a Svara database (no {missing[0]} table)")
    return connection


def _private(path: Path) -> None:
    """Create `path` owner-only (it holds password hashes and the ledger)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))


def backup(url: str, target: Path) -> dict[str, object]:
    """A consistent copy of the running (or stopped) database into `target`, replaced
    atomically: a failed backup leaves an older `target` as it was."""
    source_path = sqlite_path(url)
    target = target.resolve()
    if target == source_path.resolve():
        raise BackupError("the backup would overwrite the database itself")
    if not target.parent.is_dir():
        raise BackupError(f"no folder {target.parent}")
    partial = target.with_name(target.name + ".partial")
    with closing(_open_existing(source_path)) as source:
        _private(partial)
        try:
            with closing(sqlite3.connect(partial)) as copy:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    return {"backup": str(target), "database": str(source_path), "bytes": target.stat().st_size}


def restore(instance: Path, url: str, source: Path) -> dict[str, object]:
    """Replace the instance's database by the backup `source` (checked first); refused while
    a server runs on the instance."""
    target = sqlite_path(url)
    with closing(_open_existing(source.resolve())) as backup_db:
        check = backup_db.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise BackupError(f"{source} is damaged: {check}")
        users = backup_db.execute("SELECT count(*) FROM users").fetchone()[0]
        with _exclusive(instance):
            if not target.exists():
                _private(target)
            with closing(sqlite3.connect(target)) as live:
                backup_db.backup(live)
    return {"restored": str(source), "database": str(target), "users": users}
