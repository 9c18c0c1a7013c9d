"""`svara admin variant …`: rule variants."""

from __future__ import annotations

import click

from app.admin import variants as service

from . import admin
from .base import Admin, admin_command


@admin.group()
def variant() -> None:
    """Rule variants: the presets and custom ones stored in the database."""


@admin_command(variant, "list")
def list_(admin: Admin) -> None:
    """Every variant a table may play."""
    with admin.session() as s:
        admin.show(service.list_variants(s), ["name", "game", "base", "description"])


@admin_command(variant, "show")
@click.argument("name")
def show(admin: Admin, name: str) -> None:
    """Every parameter of NAME: value, default, range and meaning."""
    with admin.session() as s:
        shown = service.show_variant(s, name)
    if admin.as_json:
        admin.show(shown)
        return
    for param in shown["params"]:
        limits = "" if param["low"] is None else f"{param['low']}..{param['high']}"
        param["range"] = limits or param["type"]
    admin.show({k: v for k, v in shown.items() if k != "params"})
    admin.show(shown["params"], ["key", "value", "default", "range", "doc"])


@admin_command(variant, "create")
@click.argument("name")
@click.option("--from", "base", required=True, help="the variant it starts from")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="a rule override")
def create(admin: Admin, name: str, base: str, sets: tuple[str, ...]) -> None:
    """Store the variant NAME: BASE with the --set overrides (checked against the game's
    parameter types and ranges)."""
    with admin.session() as s:
        made = service.create_variant(s, name, base, service.parse_sets(sets))
    admin.show({k: v for k, v in made.items() if k != "params"})


@admin_command(variant, "delete")
@click.argument("name")
def delete(admin: Admin, name: str) -> None:
    """Delete the custom variant NAME (refused while an open table plays it)."""
    with admin.session() as s:
        service.delete_variant(s, name)
    admin.show({"variant": name, "deleted": True})
