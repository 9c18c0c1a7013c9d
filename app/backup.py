"""Backups of an instance's database (`svara admin backup|restore`, docs/hosting.md «Backups»).

SQLite: a backup is SQLite's online backup API, which copies a consistent snapshot while the
server goes on writing (WAL mode: the copy never blocks the server, and what is still in
`-wal` is in it). A restore goes the same way in the other direction, so the target's `-wal`
and `-shm` stay coherent. PostgreSQL has its own tools (pg_dump / pg_restore); the commands
say how instead of half-doing it.

A restore trusts nothing in the file: it copies the backup to a private file first, and
replaces the database only by that copy once it is proven a Svara database (`check`): the
schema exactly what the app's own migrations make at the backup's revision (no trigger, view
or table of its own, which would run inside the server), books that `ledger verify` finds
balanced, and every amount within the ledger's bounds (0..10¹², C-0.3). A backup is written
only into a file the command created itself (O_EXCL, no link followed), owner-only.

A restore must not pull the database from under a running server: `svara serve` holds a
shared `flock` on `serve.lock` in the instance folder for as long as it runs (the kernel
drops it when the process ends, however it ends), and a restore takes it exclusively, or
refuses.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import IO

from sqlalchemy import create_engine
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
    """Create `path` owner-only (it holds password hashes and the ledger): a new file, never
    one that is there already, nor through a symbolic link planted at its name."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    except FileExistsError:
        raise BackupError(f"{path} is in the way (a file or link of someone else's?)") from None


def _scratch(folder: Path, name: str) -> Path:
    """A new owner-only file in `folder` nobody else could have made (a random name)."""
    path = folder / f".{name}.{secrets.token_hex(8)}.partial"
    _private(path)
    return path


def backup(url: str, target: Path) -> dict[str, object]:
    """A consistent copy of the running (or stopped) database into `target`, replaced
    atomically: a failed backup leaves an older `target` as it was. The copy is written into
    a file made here (mode 0600), then renamed over `target`: a link at `target` is replaced,
    never followed."""
    source_path = sqlite_path(url)
    target = Path(os.path.abspath(target))
    if target.resolve() == source_path.resolve():
        raise BackupError("the backup would overwrite the database itself")
    if not target.parent.is_dir():
        raise BackupError(f"no folder {target.parent}")
    with closing(_open_existing(source_path)) as source:
        partial = _scratch(target.parent, target.name)
        try:
            with closing(sqlite3.connect(partial)) as copy:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    return {"backup": str(target), "database": str(source_path), "bytes": target.stat().st_size}


def _schema(db: sqlite3.Connection) -> dict[tuple[str, str], tuple[str, str | None]]:
    """Every object of the schema (SQLite's own bookkeeping tables aside): (type, name) →
    (its table, its SQL)."""
    rows = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
    return {
        (kind, name): (table, sql)
        for kind, name, table, sql in rows
        if not (kind == "table" and name.startswith("sqlite_"))
    }


def _app_schema(revision: str) -> dict[tuple[str, str], tuple[str, str | None]]:
    """The schema the app's own migrations make at `revision`, in a scratch database."""
    from alembic import command
    from alembic.util import CommandError

    from . import migrations

    with tempfile.TemporaryDirectory(prefix="svara-schema-") as folder:
        engine = create_engine(f"sqlite:///{folder}/fresh.db")
        try:
            command.upgrade(migrations.alembic_config(engine), revision)
        except CommandError:
            raise BackupError(
                f"the backup is at schema revision {revision!r}, which this Svara does not "
                "know (a newer version's backup?)"
            ) from None
        finally:
            engine.dispose()
        with closing(sqlite3.connect(f"{folder}/fresh.db")) as fresh:
            return _schema(fresh)


def _check_schema(db: sqlite3.Connection) -> None:
    try:
        revisions = [row[0] for row in db.execute("SELECT version_num FROM alembic_version")]
    except sqlite3.DatabaseError as failure:
        raise BackupError(f"the backup's schema revision cannot be read: {failure}") from None
    if len(revisions) != 1 or not isinstance(revisions[0], str):
        raise BackupError(f"the backup names {len(revisions)} schema revisions, not one")
    expected, found = _app_schema(revisions[0]), _schema(db)
    extra = sorted(found.keys() - expected.keys())
    if extra:
        kind, name = extra[0]
        raise BackupError(f"the backup has a {kind} {name!r} that Svara's schema does not")
    missing = sorted(expected.keys() - found.keys())
    if missing:
        kind, name = missing[0]
        raise BackupError(f"the backup lacks the {kind} {name!r} of Svara's schema")
    changed = sorted(key for key in expected if expected[key] != found[key])
    if changed:
        kind, name = changed[0]
        raise BackupError(f"the backup's {kind} {name!r} differs from Svara's schema")


def _check_money(path: Path) -> None:
    """The books balance (`svara admin ledger verify`) and every amount is within bounds."""
    from sqlmodel import Session

    from .admin.money import verify
    from .ledger import MAX_AMOUNT

    engine = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    try:
        with engine.connect() as connection:
            rows = connection.exec_driver_sql(
                "SELECT 'account', id, balance FROM accounts WHERE typeof(balance) != 'integer'"
                " OR balance < 0 OR balance > ? UNION ALL SELECT 'ledger row', id, amount"
                " FROM ledger WHERE typeof(amount) != 'integer' OR abs(amount) > ? LIMIT 1",
                (MAX_AMOUNT, MAX_AMOUNT),
            ).all()
        if rows:
            what, row_id, amount = rows[0]
            raise BackupError(
                f"the backup's {what} {row_id} holds {amount!r}, outside 0..{MAX_AMOUNT}"
            )
        with Session(engine) as s:
            report = verify(s)
        if not report["ok"]:
            raise BackupError(f"the backup's books do not balance: {report['problems'][0]}")
    finally:
        engine.dispose()


def check(path: Path) -> int:
    """BackupError (one line: why) unless `path` is a database Svara itself could have
    written; its number of users otherwise."""
    with closing(_open_existing(path)) as db:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        if integrity != "ok":
            raise BackupError(f"the backup is damaged: {integrity}")
        _check_schema(db)
        users: int = db.execute("SELECT count(*) FROM users").fetchone()[0]
    _check_money(path)
    return users


def restore(instance: Path, url: str, source: Path) -> dict[str, object]:
    """Replace the instance's database by the backup `source`, once a private copy of it
    passed `check` (the database is not touched otherwise); refused while a server runs on
    the instance."""
    target = sqlite_path(url)
    with closing(_open_existing(source.resolve())) as backup_db:
        copy = _scratch(target.parent, "restore")
        try:
            with closing(sqlite3.connect(copy)) as checked:
                backup_db.backup(checked)
                checked.execute("PRAGMA journal_mode=DELETE")
            users = check(copy)
            with _exclusive(instance), closing(sqlite3.connect(copy)) as checked:
                if not target.exists():
                    _private(target)
                with closing(sqlite3.connect(target)) as live:
                    checked.backup(live)
        finally:
            copy.unlink(missing_ok=True)
    return {"restored": str(source), "database": str(target), "users": users}
