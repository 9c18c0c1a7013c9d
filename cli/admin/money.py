"""`svara admin balance …`, `ledger verify`, `settle`: money."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import click

from app.admin import money as service
from app.admin import notices
from app.admin.settle import settle_up

from . import admin
from .base import AMOUNT, Admin, admin_command, indent, table

DATE = click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"])


@admin.group()
def balance() -> None:
    """Balances: grant (or take) money, show a balance with its ledger rows."""


@admin_command(balance, "grant", context_settings={"ignore_unknown_options": True})
@click.argument("name")
@click.argument("amount", type=AMOUNT)
@click.option("--reason", required=True, help="why (kept in the ledger row)")
def grant(admin: Admin, name: str, amount: int, reason: str) -> None:
    """Add AMOUNT to NAME's balance; a negative AMOUNT takes it (never below 0, C-0.1)."""
    with admin.session() as s:
        done = service.grant(s, name, amount, reason)
        user = service.get_user(s, name)
        notice = notices.post(s, "balance", user=user.id)
    admin.show({**done, "live": admin.live(notice)})


@admin_command(balance, "show")
@click.argument("name")
@click.option("--recent", type=click.IntRange(1, 1000), default=service.RECENT, show_default=True)
def show(admin: Admin, name: str, recent: int) -> None:
    """NAME's balance, stacks at tables and latest ledger rows (newest first)."""
    with admin.session() as s:
        admin.show(service.show_balance(s, name, recent))


@admin.group()
def house() -> None:
    """The house: its rake, and the money that stakes the bots at money tables."""


@admin_command(house, "grant", context_settings={"ignore_unknown_options": True})
@click.argument("amount", type=AMOUNT)
@click.option("--reason", required=True, help="why (kept in the ledger row)")
def house_grant(admin: Admin, amount: int, reason: str) -> None:
    """Add AMOUNT to the house (a negative AMOUNT takes it, never below 0): the bots at
    money tables play with the house's money, none of their own (docs/rules.md, «Bots»)."""
    with admin.session() as s:
        admin.show(service.grant_house(s, amount, reason))


@admin_command(house, "show")
def house_show(admin: Admin) -> None:
    """The house's balance and what the bots hold of its money now."""
    with admin.session() as s:
        admin.show(service.show_house(s))


@admin.group()
def ledger() -> None:
    """The books: prove that the ledger balances."""


@admin_command(ledger, "verify")
def verify(admin: Admin) -> None:
    """Prove the books balance (C-0.3); exit status 1 and the first discrepancy if not."""
    with admin.session() as s:
        report = service.verify(s)
    if report["ok"]:
        admin.show(report)
        return
    if admin.as_json:
        admin.show(report)
    else:
        click.echo(f"svara: the books do not balance: {report['problems'][0]}", err=True)
        for problem in report["problems"][1:]:
            click.echo(f"  also: {problem}", err=True)
    sys.exit(1)


@admin_command(admin, "settle")
@click.option("--since", type=DATE, required=True, help="first day (UTC) of the period")
@click.option("--until", type=DATE, default=None, help="end of the period (UTC, excluded)")
def settle(admin: Admin, since: datetime, until: datetime | None) -> None:
    """The friends' settle-up: each player's net result in the hands started since SINCE
    (game money only: no grants) and the fewest payments that square them (exact for small
    groups, greedy for large ones; the house is a party when it took rake or its bots
    played: a bot plays with the house's money)."""
    with admin.session() as s:
        report = settle_up(
            s, since.replace(tzinfo=UTC), until.replace(tzinfo=UTC) if until else None
        )
    if admin.as_json:
        admin.show(report)
        return
    click.echo(f"results since {report['since']}:")
    click.echo(indent(table([{"player": k, "net": v} for k, v in report["results"].items()])))
    click.echo("payments:")
    click.echo(indent(table(report["payments"], ["payer", "payee", "amount"])))
