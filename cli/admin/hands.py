"""`svara admin hand …`: the hands played."""

from __future__ import annotations

import json
import sys

import click

from app.admin import hands as service

from . import admin
from .base import ID, Admin, admin_command


@admin.group()
def hand() -> None:
    """Hands: list, show the hand file, verify."""


@admin_command(hand, "list")
@click.option("--table", "table_key", default=None, help="one table (id or name)")
@click.option("--user", "user_name", default=None, help="hands with this player")
@click.option(
    "--limit", type=click.IntRange(1, 10_000), default=service.LIST_LIMIT, show_default=True
)
def list_(admin: Admin, table_key: str | None, user_name: str | None, limit: int) -> None:
    """The latest hands, newest first."""
    with admin.session() as s:
        rows = service.list_hands(s, table_key, user_name, limit)
    admin.show(rows, ["id", "table", "table_name", "started", "status", "players", "actions"])


@admin_command(hand, "show")
@click.argument("hand_id", metavar="ID", type=ID)
def show(admin: Admin, hand_id: int) -> None:
    """The hand file of hand ID (docs/rules/hand-file.md): `svara replay` reads it as it is."""
    with admin.session() as s:
        doc = service.show_hand(s, hand_id)
    click.echo(json.dumps(doc, ensure_ascii=False, indent=None if admin.as_json else 2))


@admin_command(hand, "verify")
@click.argument("hand_id", metavar="ID", type=ID)
def verify(admin: Admin, hand_id: int) -> None:
    """Replay hand ID through the engine, check its shuffle commitments and its ledger rows;
    exit status 1 when something does not match."""
    with admin.session() as s:
        report = service.verify_hand(s, hand_id)
    admin.show(report)
    if not report["ok"]:
        sys.exit(1)
