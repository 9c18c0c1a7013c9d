"""Tables as the administrator runs them: create (with a variant, stakes, overrides and
bots), list, show, close (a hand in play is cancelled and refunded, stacks go back to the
balances) and the idempotent demo set."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, func, select

from app import ledger
from app.engine.games import GAMES
from app.engine.variants import VariantError
from app.lobby.invites import invite_path
from app.lobby.service import create_table
from app.models import CANCELLED, PLAYING, STACK, Account, HandRecord, Table, User, utcnow
from app.table_rules import find_variant, table_variant

from . import AdminError
from .variants import json_rules


def get_table(s: Session, key: str) -> Table:
    """A table by id, or by name among the open tables (it must be unambiguous)."""
    if key.isascii() and key.isdigit():
        table = s.get(Table, int(key)) if int(key) < 2**63 else None  # SQLite's ids end there
        if table is None:
            raise AdminError(f"no table with id {key}")
        return table
    found = s.exec(select(Table).where(Table.name == key, ~col(Table.closed))).all()
    if not found:
        raise AdminError(f"no open table named {key!r}")
    if len(found) > 1:
        ids = ", ".join(str(t.id) for t in found)
        raise AdminError(f"several open tables are named {key!r} (ids {ids}): give the id")
    return found[0]


def new_table(
    s: Session,
    name: str,
    variant: str,
    *,
    seats: int | None = None,
    ante: int | None = None,
    sets: dict[str, Any] | None = None,
    bots: int = 0,
    private: bool = False,
) -> Table:
    """A table through the lobby's own `create_table` (the same checks as the web form),
    with its overrides stored checked and normalised.

    `bots` seats are the server's to fill (docs/rules.md, «Bots»); at least one seat stays for a
    person. In the games with a `bots` rule (S-8.2: no rake with a bot) it is switched on.
    """
    overrides: dict[str, Any] = dict(sets or {})
    if ante is not None:
        overrides["ante"] = ante
    checked = find_variant(s, variant, {**overrides, **({"seats": seats} if seats else {})})
    if not 0 <= bots < checked["seats"]:
        raise AdminError(f"bots must be 0 to {checked['seats'] - 1} at {checked['seats']} seats")
    stored = json_rules(checked.rules)
    if bots and "bots" in stored:
        overrides["bots"] = stored["bots"] = True
    table = create_table(
        s,
        name,
        variant,
        seats=checked["seats"],
        private=private,
        rules={key: stored[key] for key in overrides if key != "seats"},
    )
    table.bots = bots
    s.add(table)
    s.flush()
    return table


def table_row(s: Session, table: Table) -> dict[str, Any]:
    """One table as listed; a table whose custom variant was deleted still lists."""
    try:
        variant = table_variant(s, table)
        game, ante = variant.game, variant["ante"]
    except VariantError:
        game, ante = None, None
    hands = s.exec(select(func.count()).where(HandRecord.table_id == table.id)).one()
    playing = s.exec(
        select(HandRecord.id).where(HandRecord.table_id == table.id, HandRecord.status == PLAYING)
    ).first()
    return {
        "id": table.id,
        "name": table.name,
        "variant": table.variant,
        "game": game,
        "ante": ante,
        "seats": table.seats,
        "bots": table.bots,
        "private": table.private,
        # The path of a private table's invite link (docs/hosting.md, «Private tables»).
        "invite": invite_path(table.invite) if table.invite else None,
        "closed": table.closed,
        "hands": hands,
        "in_play": playing,
    }


def list_tables(s: Session, include_closed: bool = False) -> list[dict[str, Any]]:
    query = select(Table).order_by(col(Table.id))
    if not include_closed:
        query = query.where(~col(Table.closed))
    return [table_row(s, t) for t in s.exec(query).all()]


def show_table(s: Session, key: str) -> dict[str, Any]:
    """A table with its full rules, its stacks and its latest hands."""
    table = get_table(s, key)
    try:
        rules = json_rules(table_variant(s, table).rules)
    except VariantError as gone:
        rules = {"error": str(gone), "stored": table.rules}  # what to fix, or close it
    stacks = s.exec(
        select(User.name, Account.balance)
        .join(User, col(User.id) == Account.user_id)
        .where(Account.table_id == table.id, Account.kind == STACK, Account.balance > 0)
    ).all()
    hands = s.exec(
        select(HandRecord)
        .where(HandRecord.table_id == table.id)
        .order_by(col(HandRecord.id).desc())
        .limit(10)
    ).all()
    return {
        **table_row(s, table),
        "overrides": table.rules,
        "rules": rules,
        "stacks": dict(stacks),
        "recent_hands": [{"id": h.id, "status": h.status} for h in hands],
    }


def close_table(s: Session, table: Table, reason: str) -> dict[str, Any]:
    """Close in the database: refund every hand still in play (C-8.5), return every stack to
    its balance (S-1.5), mark the table closed — in the caller's one transaction.

    Only the process that owns the table may call this while the table is live (a running
    server: app/admin/live.py), or the CLI when no server runs.
    """
    assert table.id is not None
    cancelled = []
    for hand in s.exec(
        select(HandRecord).where(HandRecord.table_id == table.id, HandRecord.status == PLAYING)
    ).all():
        assert hand.id is not None
        ledger.refund(s, hand.id, reason)
        hand.status, hand.finished = CANCELLED, utcnow()
        s.add(hand)
        cancelled.append(hand.id)
    returned = {}
    for account in s.exec(
        select(Account).where(
            Account.table_id == table.id, Account.kind == STACK, Account.balance > 0
        )
    ).all():
        assert account.user_id is not None
        rows = ledger.cash_out(s, account.user_id, table.id)
        owner = s.get(User, account.user_id)
        assert owner is not None
        returned[owner.name] = sum(r.amount for r in rows if r.amount > 0)
    table.closed = True
    s.add(table)
    s.flush()
    return {"table": table.id, "cancelled_hands": cancelled, "returned_stacks": returned}


def seed(s: Session) -> list[dict[str, Any]]:
    """The demo tables that are missing (by name among open tables); none on a second run."""
    made = []
    # one open table of each kind each game names, created only when missing (by name)
    for name, variant, rules in (t for g in GAMES.values() for t in g.demo_tables):
        exists = s.exec(select(Table.id).where(Table.name == name, ~col(Table.closed))).first()
        if exists is None:
            made.append(table_row(s, new_table(s, name, variant, sets=dict(rules))))
    return made
