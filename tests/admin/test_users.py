"""`svara admin user …` through click's runner: accounts made and changed by the same
services as the web (app/auth/service.py), refusals with status 2 and nothing changed."""

from __future__ import annotations

import json

import click
from sqlmodel import select

from app.auth.service import authenticate
from app.models import User
from cli.admin import admin as group

from .conftest import PASSWORD, Admin


def test_create_list_show(admin: Admin) -> None:
    """C-0.1: a new account holds 0; --admin makes an administrator."""
    anna = admin.user("anna")
    assert [anna[k] for k in ("name", "admin", "banned", "balance")] == ["anna", False, False, 0]
    admin.user("boris", "--admin")
    rows = admin.ok("user", "list")
    assert [(r["name"], r["admin"]) for r in rows] == [("anna", False), ("boris", True)]
    shown = admin.ok("user", "show", "ANNA")  # names are found ignoring case, as at login
    assert (shown["name"], shown["stacks"], shown["ledger_rows"]) == ("anna", {}, 0)
    assert json.loads(admin.run("--json", "user", "list").stdout) == rows  # --json on the group
    human = admin.run("user", "list")
    assert human.exit_code == 0
    assert human.stdout.splitlines()[0].split() == ["name", "admin", "banned", "balance", "created"]
    assert "boris  yes" in human.stdout


def test_password_is_prompted_twice_and_works(admin: Admin) -> None:
    result = admin.run("user", "create", "vera", input="secret words\nsecret words\n")
    assert result.exit_code == 0, result.output
    with admin.db.session() as s:
        assert authenticate(s, "vera", "secret words") is not None
        assert authenticate(s, "vera", PASSWORD) is None


def test_set_password(admin: Admin) -> None:
    admin.user("anna")
    assert admin.ok("user", "set-password", "anna", "--password", "another one")["password"]
    with admin.db.session() as s:
        assert authenticate(s, "anna", "another one") is not None
        assert authenticate(s, "anna", PASSWORD) is None


def test_ban_unban_and_admin_rights(admin: Admin) -> None:
    admin.user("anna")
    banned = admin.ok("user", "ban", "anna")
    assert banned["banned"] and banned["live"] == {"server": False}
    with admin.db.session() as s:
        assert authenticate(s, "anna", PASSWORD) is None  # a banned user cannot log in
    admin.ok("user", "unban", "anna")
    with admin.db.session() as s:
        assert authenticate(s, "anna", PASSWORD) is not None
    assert admin.ok("user", "admin", "anna", "--grant")["admin"] is True
    assert admin.ok("user", "admin", "anna", "--revoke")["admin"] is False
    with admin.db.session() as s:
        anna = s.exec(select(User).where(User.name == "anna")).one()
        assert (anna.banned, anna.is_admin) == (False, False)


def test_refusals_change_nothing(admin: Admin) -> None:
    admin.user("anna")
    admin.refused("user", "create", "Anna", "--password", PASSWORD, match="taken")
    admin.refused("user", "create", "boris", "--password", "short", match="at least 8")
    admin.refused("user", "create", "pot", "--password", PASSWORD, match="reserved")
    admin.refused("user", "create", "x y", "--password", PASSWORD, match="letters")
    for command in (["show"], ["ban"], ["unban"], ["admin", "--grant"]):
        admin.refused("user", *command[:1], "nobody", *command[1:], match="unknown user")
    admin.refused("user", "set-password", "nobody", "--password", PASSWORD, match="unknown user")
    admin.refused("user", "set-password", "anna", "--password", "short", match="at least 8")
    admin.refused("user", "admin", "anna", match="--grant")  # click's usage error: status 2


def test_every_command_has_help(admin: Admin) -> None:
    """`--help` on the group, every sub-group and every command."""
    result = admin.run("--help")
    assert result.exit_code == 0
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        paths = [[name]]
        if isinstance(command, click.Group):
            paths += [[name, sub] for sub in command.list_commands(ctx)]
        for path in paths:
            shown = admin.run(*path, "--help")
            assert shown.exit_code == 0 and "Usage:" in shown.stdout, path
            assert len(shown.stdout.split("\n\n")[1].strip()) > 10, path  # a real description
