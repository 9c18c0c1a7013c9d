"""What every `svara admin` command shares: the instance's app and database, one transaction
per command with refusals turned into exit status 2, the server's answers, and the output
(a human table, or JSON with `--json`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cached_property, wraps
from typing import Any, TypeVar

import click
from flask import Flask
from sqlmodel import Session

from app import create_app
from app.admin import AdminError
from app.admin.notices import answer
from app.auth.service import AccountError
from app.engine.variants import VariantError
from app.ledger import MAX_AMOUNT, LedgerError
from app.models import Database
from app.models.db import EXTENSION as DB
from cli.rules import fail

F = TypeVar("F", bound=Callable[..., Any])
REFUSALS = (AdminError, AccountError, VariantError, LedgerError)

# Numbers from the command line are bounded before they reach the service or SQLite (whose
# integers end at 2⁶³): a clear usage error, exit status 2, nothing changed.
AMOUNT = click.IntRange(-MAX_AMOUNT, MAX_AMOUNT)  # a grant's amount (app/ledger.py)
ID = click.IntRange(1, 2**63 - 1)  # a row id: hands, tables


class Admin:
    """The instance the commands work on; the app is built on first use (threading mode: the
    CLI serves nothing and never owns a table)."""

    def __init__(self, instance: str, as_json: bool = False):
        self.instance = instance
        self.as_json = as_json

    @cached_property
    def app(self) -> Flask:
        return create_app({"INSTANCE": self.instance, "ASYNC_MODE": "threading"})

    def close(self) -> None:
        """Release the database (the app is built only if a command used it)."""
        if "app" in self.__dict__:
            self.db.dispose()

    @property
    def db(self) -> Database:
        return self.app.extensions[DB]

    @property
    def config(self) -> dict[str, Any]:
        return dict(self.app.config)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction; a refusal rolls it back and ends the command with status 2."""
        with self.app.app_context():
            try:
                with self.db.session() as s:
                    yield s
            except REFUSALS as refused:
                fail(str(refused))

    def live(self, notice_id: int | None) -> dict[str, Any]:
        """The running server's answer to a notice ({"server": false} when none runs)."""
        if notice_id is None:
            return {"server": False}
        result = answer(self.db, notice_id)
        if result is None:
            return {"server": False, "note": "the server stopped before answering"}
        return {"server": True, **result}

    def show(self, data: Any, columns: list[str] | None = None) -> None:
        """JSON, or a human table (a list of rows) or `key: value` lines (an object)."""
        if self.as_json:
            click.echo(json.dumps(data, ensure_ascii=False, default=str))
        elif isinstance(data, list):
            click.echo(table(data, columns))
        else:
            for key, value in data.items():
                if isinstance(value, list) and value and isinstance(value[0], dict):
                    click.echo(f"{key}:")
                    click.echo(indent(table(value)))
                else:
                    click.echo(f"{key}: {text(value)}")


def text(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def table(rows: list[dict[str, Any]], columns: list[str] | None = None) -> str:
    """Rows as aligned columns under a header; «(none)» for no rows."""
    if not rows:
        return "(none)"
    columns = columns or list(rows[0])
    cells = [[text(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = [columns, *cells]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def indent(block: str) -> str:
    return "\n".join("  " + line for line in block.splitlines())


def admin_command(group: click.Group, name: str | None = None, **settings: Any) -> Callable[[F], F]:
    """A sub-command of `group` with `--json`; it gets the `Admin` as its first argument."""

    def decorate(function: F) -> F:
        @click.option("--json", "as_json", is_flag=True, help="print one JSON document")
        @click.pass_obj
        @wraps(function)
        def command(admin: Admin, as_json: bool, *args: Any, **kwargs: Any) -> Any:
            admin.as_json = as_json or admin.as_json
            return function(admin, *args, **kwargs)

        group.command(name, **settings)(command)
        return function

    return decorate
