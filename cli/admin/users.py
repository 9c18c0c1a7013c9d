"""`svara admin user …`: accounts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from app.admin import notices
from app.admin import users as service

from . import admin
from .base import Admin, admin_command


@admin.group()
def user() -> None:
    """Accounts: create, list, show, password, ban, admin rights."""


def _password_option(help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option(
        "--password",
        prompt=True,
        hide_input=True,
        confirmation_prompt=True,
        help=f"{help_text} (asked for when not given)",
    )


@admin_command(user, "create")
@click.argument("name")
@click.option("--admin", "is_admin", is_flag=True, help="an administrator")
@_password_option("the password")
def create(admin: Admin, name: str, is_admin: bool, password: str) -> None:
    """Create the account NAME (balance 0, C-0.1)."""
    config = admin.config
    with admin.session() as s:
        made = service.add_user(
            s,
            name,
            password,
            is_admin=is_admin,
            min_password=config["PASSWORD_MIN_LENGTH"],
            max_name=config["NAME_MAX_LENGTH"],
        )
        row = service.user_row(s, made)
    admin.show(row)


@admin_command(user, "list")
def list_(admin: Admin) -> None:
    """Every account with its balance."""
    with admin.session() as s:
        rows = service.list_users(s)
    admin.show(rows, ["name", "admin", "banned", "balance", "created"])


@admin_command(user, "show")
@click.argument("name")
def show(admin: Admin, name: str) -> None:
    """One account: rights, ban, balance, stacks at tables."""
    with admin.session() as s:
        admin.show(service.show_user(s, name))


@admin_command(user, "set-password")
@click.argument("name")
@_password_option("the new password")
def set_password(admin: Admin, name: str, password: str) -> None:
    """Give NAME a new password; his sessions end (a running server closes his socket)."""
    with admin.session() as s:
        changed = service.change_password(s, name, password, admin.config["PASSWORD_MIN_LENGTH"])
        notice = notices.post(s, "password", user=changed.id)
    admin.show({"user": changed.name, "password": "changed", "live": admin.live(notice)})


def _ban(admin: Admin, name: str, banned: bool) -> None:
    with admin.session() as s:
        changed = service.set_banned(s, name, banned)
        notice = notices.post(s, "ban", user=changed.id) if banned else None
    admin.show({"user": changed.name, "banned": banned, "live": admin.live(notice)})


@admin_command(user, "ban")
@click.argument("name")
def ban(admin: Admin, name: str) -> None:
    """Ban NAME: no login, sessions end, a running server closes his socket and seats."""
    _ban(admin, name, True)


@admin_command(user, "unban")
@click.argument("name")
def unban(admin: Admin, name: str) -> None:
    """Lift the ban of NAME."""
    _ban(admin, name, False)


@admin_command(user, "admin")
@click.argument("name")
@click.option("--grant/--revoke", required=True, help="give or take administrator rights")
def rights(admin: Admin, name: str, grant: bool) -> None:
    """Give (--grant) or take (--revoke) administrator rights."""
    with admin.session() as s:
        changed = service.set_admin(s, name, grant)
    admin.show({"user": changed.name, "admin": changed.is_admin})
