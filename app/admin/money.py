"""Money as the administrator moves and reads it: grants, balances, the books (the settle-up
is settle.py's).

A grant is the only way money enters or leaves the system (C-0.1); it goes through
`ledger.grant`, whose guarded update refuses to take a balance below 0 even while the
server plays from it in another process.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from app import ledger
from app.auth.roster import bot_ids
from app.models import (
    STACK,
    Account,
    LedgerEntry,
    Table,
)

from . import AdminError
from .users import get_user

RECENT = 20
CLI = "svara admin"  # the actor of a grant made on the command line


def _checked(amount: int, reason: str) -> str:
    """A grant's reason, stripped; AdminError for a zero amount or no reason."""
    if amount == 0:
        raise AdminError("the amount must not be zero", "admin.zero")
    if not reason.strip():
        raise AdminError("a grant needs a reason", "admin.no_reason")
    return reason.strip()


def grant(s: Session, name: str, amount: int, reason: str, actor: str = CLI) -> dict[str, Any]:
    """Add (or, negative, take) money; AdminError for zero, no reason or an overdraft.
    `actor`: who did it, kept in the ledger row (an administrator's name on the host's page)."""
    user = get_user(s, name)
    assert user.id is not None
    reason = _checked(amount, reason)
    have = ledger.user_balance(s, user.id)
    if have + amount < 0:
        raise AdminError(
            f"{user.name} has {have}: cannot take {-amount} (never below 0)",
            "admin.overdraft",
            name=user.name,
            have=have,
            take=-amount,
        )
    row = ledger.grant(s, user, amount, reason, actor)
    return {"user": user.name, "amount": amount, "balance": have + amount, "entry": row.id}


def grant_house(s: Session, amount: int, reason: str, actor: str = CLI) -> dict[str, Any]:
    """Fund (or, negative, take from) the house, whose money stakes the bots at money
    tables (docs/rules.md, «Bots»); AdminError for no reason, LedgerError past the bounds."""
    reason = _checked(amount, reason)
    have = ledger.balance(s, ledger.house_account(s))
    if have + amount < 0:
        raise AdminError(
            f"the house has {have}: cannot take {-amount} (never below 0)",
            "admin.house_overdraft",
            have=have,
            take=-amount,
        )
    row = ledger.grant_house(s, amount, reason, actor)
    return {"house": have + amount, "amount": amount, "entry": row.id}


DEMO_BOTS = 2  # the bots `make run`'s first start seats at the demo table
DEMO_REASON = "the demo's float for the bots (first start)"


def demo_float(s: Session, demo: Table | None, amount: int) -> None:
    """The first start of a demo (`make run`: `DEMO_HOUSE`): the house gets `amount` for
    the bots — a grant like any other, with its ledger row — and the demo table two bots,
    so a player with money has opponents at once (docs/hosting.md, «The host's page»)."""
    if amount <= 0:
        return
    grant_house(s, amount, DEMO_REASON, actor="svara serve")
    if demo is not None:
        demo.bots = DEMO_BOTS
        s.add(demo)


def show_house(s: Session) -> dict[str, Any]:
    """The house: its balance (rake, and what it keeps for the bots) and what the bots hold
    of its money now."""
    house, bots = ledger.house_money(s, bot_ids(s))
    return {"house": house, "staked_on_bots": bots}


def entry_row(entry: LedgerEntry, account: Account) -> dict[str, Any]:
    return {
        "id": entry.id,
        "time": entry.created.isoformat(timespec="seconds"),
        "account": account.kind,
        "kind": entry.kind,
        "amount": entry.amount,
        "hand": entry.hand_id,
        "table": entry.table_id,
        "reason": entry.reason,
        "actor": entry.actor,
    }


def show_balance(s: Session, name: str, recent: int = RECENT) -> dict[str, Any]:
    """A user's balance, his stacks at tables and his latest ledger rows (newest first)."""
    user = get_user(s, name)
    assert user.id is not None
    rows = s.exec(
        select(LedgerEntry, Account)
        .join(Account, col(Account.id) == LedgerEntry.account_id)
        .where(Account.user_id == user.id)
        .order_by(col(LedgerEntry.id).desc())
        .limit(recent)
    ).all()
    stacks = s.exec(
        select(Account.table_id, Account.balance).where(
            Account.user_id == user.id, Account.kind == STACK, Account.balance > 0
        )
    ).all()
    return {
        "user": user.name,
        "balance": ledger.user_balance(s, user.id),
        "stacks": {str(table): amount for table, amount in stacks},
        "recent": [entry_row(entry, account) for entry, account in rows],
    }


def verify(s: Session) -> dict[str, Any]:
    """`ledger.verify` as a report; `ok` is False with the problems listed in order."""
    books = ledger.verify(s, bot_ids(s))
    return {
        "ok": books.ok,
        "granted": books.granted,
        "balances": books.balances,
        "in_play": books.in_play,
        "house": books.house,
        "staked_on_bots": books.bots,
        "problems": books.problems,
    }
