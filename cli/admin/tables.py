"""`svara admin table …` and `seed`: tables."""

from __future__ import annotations

import click

from app.admin import AdminError, notices
from app.admin import tables as service
from app.admin.users import get_user
from app.admin.variants import parse_sets
from cli.rules import fail

from . import admin
from .base import Admin, admin_command

COLUMNS = ["id", "name", "variant", "ante", "seats", "bots", "private", "closed", "hands"]


@admin.group()
def table() -> None:
    """Tables: create, list, show, close, kick a player."""


@admin_command(table, "create")
@click.argument("name")
@click.option("--variant", required=True, help="a preset or a custom variant")
@click.option("--seats", type=int, default=None, help="seats (within the variant's range)")
@click.option("--ante", type=int, default=None, help="the ante (C-2.1, S-1.2, B-1.2)")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="a rule override")
@click.option("--bots", type=click.IntRange(0), default=0, show_default=True, help="bot seats")
@click.option(
    "--private", is_flag=True, help="not listed; reached only by its invite link (printed)"
)
def create(
    admin: Admin,
    name: str,
    variant: str,
    seats: int | None,
    ante: int | None,
    sets: tuple[str, ...],
    bots: int,
    private: bool,
) -> None:
    """Open the table NAME; a running server lists it in the lobby at once. A --private one
    is not listed: its `invite` is the path of its link, to give after the server's address
    (https://your.host/invite/…); whoever follows it may join."""
    with admin.session() as s:
        made = service.new_table(
            s,
            name,
            variant,
            seats=seats,
            ante=ante,
            sets=parse_sets(sets),
            bots=bots,
            private=private,
        )
        row = service.table_row(s, made)
        notice = notices.post(s, "table", table=made.id)
    admin.show({**row, "live": admin.live(notice)})


@admin_command(table, "list")
@click.option("--all", "include_closed", is_flag=True, help="closed tables too")
def list_(admin: Admin, include_closed: bool) -> None:
    """The open tables (with --all, the closed ones too)."""
    with admin.session() as s:
        admin.show(service.list_tables(s, include_closed), COLUMNS)


@admin_command(table, "show")
@click.argument("key", metavar="TABLE")
def show(admin: Admin, key: str) -> None:
    """One TABLE (id or name): its full rules, stacks and latest hands."""
    with admin.session() as s:
        admin.show(service.show_table(s, key))


@admin_command(table, "close")
@click.argument("key", metavar="TABLE")
@click.option("--reason", default="closed by the administrator", show_default=True)
def close(admin: Admin, key: str, reason: str) -> None:
    """Close TABLE: a hand in play is cancelled and refunded (C-8.5), stacks go back to the
    balances; a running server ends the table for everyone at it."""
    with admin.session() as s:
        found = service.get_table(s, key)
        if found.closed:
            raise AdminError(f"table {found.id} is already closed")
        table_id = found.id
        notice = notices.post(s, "close", table=table_id, reason=reason)
        result = None if notice is not None else service.close_table(s, found, reason)
    live = admin.live(notice) if notice is not None else {"server": False}
    if notice is not None and not live["server"]:  # the server stopped: the notice is ours
        with admin.session() as s:
            found = service.get_table(s, str(table_id))
            result = service.close_table(s, found, reason)
    elif notice is not None:
        if not live.get("ok"):
            fail(f"the server did not close table {table_id}: {live.get('error')}", 1)
        result = {k: v for k, v in live.items() if k not in ("ok", "server")}
    admin.show({**(result or {}), "server": live["server"]})


@admin_command(table, "kick")
@click.argument("key", metavar="TABLE")
@click.argument("name", metavar="USER")
def kick(admin: Admin, key: str, name: str) -> None:
    """Stand USER up from TABLE (or take him out of its queue); a server must be running."""
    with admin.session() as s:
        found = service.get_table(s, key)
        person = get_user(s, name)
        notice = notices.post(s, "kick", table=found.id, user=person.id)
        if notice is None:
            raise AdminError("no server is running: nobody sits at any table")
    live = admin.live(notice)
    if not live.get("ok"):
        reason = live.get("error") or "the server stopped before answering"
        fail(str(reason), 1 if live.get("pending") else 2)
    admin.show({"table": found.id, "user": person.name, "kicked": True})


@admin_command(admin, "seed")
def seed(admin: Admin) -> None:
    """Open the demo tables that are missing (one per game and a few stakes; idempotent)."""
    with admin.session() as s:
        made = service.seed(s)
        for row in made:
            notices.post(s, "table", table=row["id"])
    admin.show(made, COLUMNS)
