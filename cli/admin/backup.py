"""`svara admin backup FILE`, `svara admin restore FILE`: the database's copies (app/backup.py)."""

from __future__ import annotations

from pathlib import Path

import click

from app import backup as service
from cli.rules import fail

from . import admin
from .base import Admin, admin_command

FILE = click.Path(dir_okay=False, path_type=Path)


@admin_command(admin, "backup")
@click.argument("file", type=FILE)
def backup(admin: Admin, file: Path) -> None:
    """Write a consistent copy of the database to FILE (replaced if it exists), while the
    server runs or not. PostgreSQL: says how to use pg_dump."""
    try:
        _, url = service.database_url(admin.instance)
        admin.show(service.backup(url, file))
    except service.BackupError as refused:
        fail(str(refused))


@admin_command(admin, "restore")
@click.argument("file", type=FILE)
@click.option("--yes", is_flag=True, help="replace an existing database without asking")
def restore(admin: Admin, file: Path, yes: bool) -> None:
    """Replace the instance's database by the backup FILE; refused while a server runs on
    the instance. Users, balances, ledger, tables and hands are those of the backup."""
    try:
        instance, url = service.database_url(admin.instance)
        target = service.sqlite_path(url)
        if target.exists() and target.stat().st_size and not yes:
            # A damaged or foreign file is refused before the host is asked (restore checks
            # its own private copy again before it replaces anything).
            users = service.check(file.resolve())
            click.confirm(
                f"Replace the database {target} by {file} ({users} accounts)?", abort=True
            )
        admin.show(service.restore(instance, url, file))
    except service.BackupError as refused:
        fail(str(refused))
