"""The server's bots as accounts: their names and avatars, and the mark no password opens.

The bots themselves sit at tables in app/bots/; their names live here, with the accounts,
so that registering a name (app/auth/service.py: no person may take a bot's name) and the
books (app/admin/: a bot's money is the house's) read them without loading the tables.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel import Session, col, select

from app.models import User

BOT_HASH = "!bot"  # not an argon2 hash: no password logs a bot in (app/auth/service.py)
# Names and avatars: «Гэри» is the practice bot (B-1.4). An avatar is the name of a picture
# the server ships, static/img/avatars/<avatar>.svg (drawn on any machine, with or without a
# colour emoji font).
ROSTER: dict[str, str] = {
    "Гэри": "hat",
    "Бот Вася": "bear",
    "Бот Зина": "fox",
    "Бот Толик": "wolf",
    "Бот Люба": "owl",
    "Бот Петрович": "boar",
    "Бот Маша": "cat",
}


def bot_ids(s: Session, among: Iterable[int] | None = None) -> set[int]:
    """The user ids of the bots (for the books and the settle-up: their money is the
    house's); with `among`, only those of these users (read by their ids, not every user)."""
    query = select(User.id).where(User.password_hash == BOT_HASH)
    if among is not None:
        query = query.where(col(User.id).in_(list(among)))
    return set(s.exec(query).all())  # type: ignore[arg-type]
