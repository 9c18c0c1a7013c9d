"""Accounts: creating users, checking passwords, the session's user (C-0.1).

Used by the web forms, the socket layer and the admin CLI alike, always inside a caller's
session (`with get_db().session() as s:`).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from functools import cache, wraps
from typing import Any, ParamSpec

from argon2.exceptions import InvalidHashError, VerificationError
from flask import g, redirect, request, session, url_for
from sqlalchemy import or_
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.engine.hand import HOUSE, POT
from app.ledger import user_account
from app.models import Database, User, get_db
from app.names import NameRefused, mixed_scripts, name_key, shown, skeleton, strict_key

from .hashing import passwords
from .roster import ROSTER

ADMIN_NAME = "admin"
# Player names appear in hand files and ledger transfers next to these (app/engine/hand.py).
RESERVED_NAMES = frozenset({POT, HOUSE})
NAME_PATTERN = re.compile(r"^[^\W_][\w-]*$")
SESSION_KEY = "user_id"
EPOCH_KEY = "epoch"
P = ParamSpec("P")


class AccountError(ValueError):
    """A name or password the rules for accounts refuse; the message says why (in English,
    for the CLI), `key` and `params` say it in the pages' language (static/js/i18n.js)."""

    def __init__(self, message: str, key: str, **params: Any):
        super().__init__(message)
        self.key, self.params = key, params


@cache
def _reserved() -> tuple[frozenset[str], frozenset[str]]:
    """The keys and skeletons of the names no person may take: the ledger's parties and the
    server's bots (roster.py)."""
    names = [*RESERVED_NAMES, *ROSTER]
    return frozenset(map(name_key, names)), frozenset(map(skeleton, names))


def check_name(name: str, max_length: int) -> str:
    """A valid new player name, as it will be shown (app/names.py): letters of one script,
    digits, `_` and `-`, not reserved nor like a reserved one."""
    if not 2 <= len(name) <= max_length:
        raise AccountError(
            f"a name has 2 to {max_length} characters", "account.name_length", max=max_length
        )
    letters = AccountError(
        "a name starts with a letter or digit and has only letters, digits, _ and -",
        "account.name_letters",
    )
    try:
        name, key = shown(name), strict_key(name)
    except NameRefused:
        raise letters from None
    if not NAME_PATTERN.match(name):
        raise letters
    if mixed_scripts(name):
        raise AccountError(
            f"the name {name!r} mixes alphabets: write it in one", "account.name_scripts", name=name
        )
    keys, skeletons = _reserved()
    if key in keys or skeleton(name) in skeletons:
        raise AccountError(f"the name {name!r} is reserved", "account.name_reserved", name=name)
    return name


def find_user(s: Session, name: str) -> User | None:
    """The user of this name, compared by key: whatever its case or width (app/names.py)."""
    return s.exec(select(User).where(col(User.name_key) == name_key(name))).first()


def _taken(name: str) -> AccountError:
    return AccountError(f"the name {name!r} is taken", "account.name_taken", name=name)


def create_user(
    s: Session,
    name: str,
    password: str,
    *,
    is_admin: bool = False,
    max_length: int = 24,
    password_hash: str | None = None,
) -> User:
    """A new user with an account holding 0 (C-0.1). AccountError if the name is taken or
    looks like a taken one (the same skeleton, UTS #39). `password_hash`:
    `passwords.hash(password)` computed before the session (the pages, check_login)."""
    name = check_name(name, max_length)
    key, look = name_key(name), skeleton(name)
    clash = or_(col(User.name_key) == key, col(User.name_skeleton) == look)
    other = s.exec(select(User).where(clash)).first()
    if other is not None and other.name_key == key:
        raise _taken(name)
    if other is not None:
        raise AccountError(
            f"the name {name!r} looks like the taken {other.name!r}",
            "account.name_lookalike",
            name=name,
            taken=other.name,
        )
    user = User(
        name=name, password_hash=password_hash or passwords.hash(password), is_admin=is_admin
    )
    s.add(user)
    try:
        s.flush()
    except IntegrityError:  # another process took it since the check: the unique index
        raise _taken(name) from None
    assert user.id is not None
    user_account(s, user.id)
    return user


def set_password(user: User, password: str) -> None:
    """A new password; every session begun with the old one ends (see `current_user`)."""
    user.password_hash = passwords.hash(password)
    user.session_epoch += 1


def authenticate(s: Session, name: str, password: str) -> User | None:
    """The user if the password is right and he is not banned; rehashes outdated hashes."""
    user = find_user(s, name)
    if not _password_matches(user, password):
        return None
    assert user is not None
    if passwords.needs_rehash(user.password_hash):
        user.password_hash = passwords.hash(password)  # same password: sessions stay
    return user


def check_login(db: Database, name: str, password: str) -> User | None:
    """`authenticate` for the pages: the hash is computed between two short sessions, not
    inside one — SQLite's sessions of a process are taken one at a time (app/models/db.py),
    so a hash inside would stop every table's writes for its duration."""
    with db.session() as s:
        user = find_user(s, name)
    if not _password_matches(user, password):
        return None
    assert user is not None
    if passwords.needs_rehash(user.password_hash):
        rehashed = passwords.hash(password)  # same password: sessions stay
        with db.session() as s:
            stored = s.get(User, user.id)
            if stored is not None:
                stored.password_hash = user.password_hash = rehashed
    return user


def _password_matches(user: User | None, password: str) -> bool:
    """The password is the user's and he is not banned. Without a user the same time is
    spent on a hash, so timing does not reveal which names exist."""
    if user is None:
        passwords.hash(password)
        return False
    try:
        passwords.verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
    return not user.banned


def ensure_admin(s: Session) -> str | None:
    """On a database without users, create `admin` with a generated password and return the
    password (shown once by `svara serve`); otherwise None."""
    if s.exec(select(User.id)).first() is not None:
        return None
    password = secrets.token_urlsafe(12)
    create_user(s, ADMIN_NAME, password, is_admin=True)
    return password


# --- the session's user -----------------------------------------------------------------
def log_in(user: User) -> None:
    """Start a fresh session for `user` (a new session defeats session fixation)."""
    session.clear()
    session[SESSION_KEY] = user.id
    session[EPOCH_KEY] = user.session_epoch
    session.permanent = True


def log_out(s: Session, user: User) -> None:
    """End this session and every other of the user, copies of the cookie included: the
    session is a signed cookie, so it is revoked by moving the user's epoch on."""
    stored = s.get(User, user.id)
    if stored is not None:
        stored.session_epoch += 1
    session.clear()


def current_user() -> User | None:
    """The logged-in user of this request (cached on `g`): None when banned or when his
    sessions were ended since this one began."""
    if "user" not in g:
        user = None
        user_id = session.get(SESSION_KEY)
        if isinstance(user_id, int):
            with get_db().reading() as s:
                user = s.get(User, user_id)
            if user is not None and (user.banned or session.get(EPOCH_KEY) != user.session_epoch):
                user = None
        g.user = user
    return g.user


def login_required(view: Callable[P, Any]) -> Callable[P, Any]:
    """Send visitors without a session to the login page, and back afterwards."""

    @wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> Any:
        if current_user() is None:
            return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return wrapped
