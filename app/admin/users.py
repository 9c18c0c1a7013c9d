"""Accounts as the administrator sees them: create, list, show, passwords, bans, admin rights.

Names are found by their key, as at login: whatever their case or width (app/names.py). A
ban also takes effect in a running server: the user's socket is closed and he leaves his
seats (notice `ban`).
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from app import ledger
from app.auth.service import create_user, find_user, set_password
from app.models import STACK, Account, LedgerEntry, User

from . import AdminError


def get_user(s: Session, name: str) -> User:
    """The user of this name, or AdminError."""
    user = find_user(s, name)
    if user is None:
        raise AdminError(f"unknown user {name!r}", "admin.no_user", name=name)
    return user


def check_password(password: str, minimum: int) -> str:
    if len(password) < minimum:
        raise AdminError(f"a password has at least {minimum} characters")
    return password


def add_user(
    s: Session, name: str, password: str, *, is_admin: bool, min_password: int, max_name: int
) -> User:
    """A new account with balance 0 (C-0.1); AccountError for a bad or taken name."""
    check_password(password, min_password)
    return create_user(s, name, password, is_admin=is_admin, max_length=max_name)


def user_row(s: Session, user: User) -> dict[str, Any]:
    """One user as listed: name, rights, ban, balance."""
    assert user.id is not None
    return {
        "id": user.id,
        "name": user.name,
        "admin": user.is_admin,
        "banned": user.banned,
        "balance": ledger.user_balance(s, user.id),
        "created": user.created.isoformat(timespec="seconds"),
    }


def list_users(s: Session) -> list[dict[str, Any]]:
    return [user_row(s, u) for u in s.exec(select(User).order_by(User.name)).all()]


def show_user(s: Session, name: str) -> dict[str, Any]:
    """A user with his stacks at tables and his number of ledger rows."""
    user = get_user(s, name)
    stacks = s.exec(
        select(Account.table_id, Account.balance).where(
            Account.user_id == user.id, Account.kind == STACK, Account.balance > 0
        )
    ).all()
    rows = s.exec(
        select(LedgerEntry.id)
        .join(Account, col(Account.id) == LedgerEntry.account_id)
        .where(Account.user_id == user.id)
    ).all()
    return {
        **user_row(s, user),
        "stacks": {str(table): amount for table, amount in stacks},
        "ledger_rows": len(rows),
    }


def change_password(s: Session, name: str, password: str, minimum: int) -> User:
    user = get_user(s, name)
    set_password(user, check_password(password, minimum))
    s.add(user)
    return user


def set_banned(s: Session, name: str, banned: bool) -> User:
    """Ban or unban; a banned user cannot log in and his sessions stop working."""
    user = get_user(s, name)
    user.banned = banned
    s.add(user)
    return user


def set_admin(s: Session, name: str, is_admin: bool) -> User:
    user = get_user(s, name)
    user.is_admin = is_admin
    s.add(user)
    return user
