"""`svara admin`: the administrator's commands, on the instance's database, through the same
services as the web (app/admin/, app/auth, app/ledger, app/lobby).

Every command prints a human table by default and one JSON document with `--json`. A request
the services refuse (unknown user, bad amount, unknown rule key …) is one line on stderr and
exit status 2, with nothing changed: the command's work runs in one transaction that is
rolled back on the error. A change a running server must see is announced to it in the same
transaction (app/admin/notices.py), and the command reports the server's answer.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

import click

from cli.options import instance_option

# The sub-command modules; each registers its commands on `admin` when imported.
MODULES = ("users", "money", "tables", "variants", "hands", "backup")


class LazyGroup(click.Group):
    """A group that imports its sub-command modules on first use: `svara serve` must
    monkey-patch eventlet before the web stack (Flask, SQLAlchemy) is imported, and the
    admin commands import it at module level."""

    def _load(self) -> None:
        for module in MODULES:
            import_module(f"{__name__}.{module}")

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> Any:
        self._load()
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@instance_option
@click.option("--json", "as_json", is_flag=True, help="print JSON (also per command)")
@click.pass_context
def admin(ctx: click.Context, instance: str, as_json: bool) -> None:
    """Administer an instance: users, balances, tables, rule variants, hands.

    Works on the instance's database while the server runs or not; a running server
    applies the changes at once (a grant at the table, a ban, a new or closed table).
    """
    from .base import Admin

    ctx.obj = Admin(instance, as_json)
    ctx.call_on_close(ctx.obj.close)
