"""Private tables (docs/hosting.md, «Private tables»): not listed, reached only through an
invite link `/invite/<token>`, the token unguessable (128 random bits).

Following the link (logged in) makes the player the table's guest for as long as the table
is open, so his reloads and reconnects need no link. Everyone else gets, from the table page
and from every table event, exactly the answer of a table that does not exist: whether a
private table exists is never said (docs/protocol.md, «Private tables»).

A visitor who follows a link logged out is sent through the login (and maybe the sign-up)
with the link as `next` (app/auth/next.py `safe_next`); those pages name the table the
link is for (`invited_to`) — a private one only to whoever holds its token. The creator
may renew the link (`Access.renew`): the old token stops opening the table, its guests
stay guests.
"""

from __future__ import annotations

import secrets
from functools import lru_cache

import segno
from flask import request
from markupsafe import Markup
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from app.models import Database, Table, TableGuest, User

TOKEN_BYTES = 16  # 128 bits: token_urlsafe writes them in 22 characters
PATH = "/invite/"


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def invite_path(token: str) -> str:
    """The link's path; players get the server's address followed by it."""
    return PATH + token


def invite_url(path: str) -> str:
    """The whole link to send a friend: the address this page was reached at (a LAN
    address, the host's domain) and the link's path."""
    return request.host_url.rstrip("/") + path


@lru_cache(maxsize=256)
def invite_qr(url: str) -> Markup:
    """The link as a QR code (inline SVG, dark on white with the standard quiet zone of four
    modules) that a friend on the sofa opens with his phone's camera from the host's screen.
    Made once per link (~10 ms each), not at every lobby page that shows it."""
    svg = segno.make(url, micro=False).svg_inline(scale=5, border=4, dark="#000", light="#fff")
    return Markup(svg)  # segno's own markup: the URL is in it only as modules


class Access:
    """Who may enter which table. A table's privacy and creator never change, so they are
    kept once read; so is each guest once seen (a guest stays one while the table is open,
    and a closed table is refused anyway). Only a refusal reads the database each time: a
    guest may have followed the link through another process."""

    def __init__(self, db: Database):
        self.db = db
        self._public: set[int] = set()
        self._creators: dict[int, int | None] = {}  # private table -> its creator
        self._guests: set[tuple[int, int]] = set()

    def may_enter(self, table_id: int, user_id: int) -> bool:
        """Whether the user may see the table: True for a public table and for one that does
        not exist (the caller refuses that as it always did), for a private table only for
        its creator and its guests."""
        if table_id in self._public or (table_id, user_id) in self._guests:
            return True
        if table_id not in self._creators:
            with self.db.reading() as s:
                table = s.get(Table, table_id)
                if table is None:
                    return True
                if not table.private:
                    self._public.add(table_id)
                    return True
                self._creators[table_id] = table.created_by
        if self._creators[table_id] == user_id:
            return True
        with self.db.reading() as s:
            guest = s.get(TableGuest, (table_id, user_id))
        if guest is not None:
            self._guests.add((table_id, user_id))
        return guest is not None

    def may_host(self, table_id: int, user_id: int) -> bool:
        """Whether the user holds the table's host controls (docs/hosting.md, «The host's
        table menu»): its creator or an administrator, at an open table. Read each time:
        an administrator may be named or removed while the table plays."""
        with self.db.reading() as s:
            table, user = s.get(Table, table_id), s.get(User, user_id)
            if table is None or table.closed or user is None:
                return False
            return table.created_by == user_id or user.is_admin

    def accept(self, token: str, user_id: int) -> int | None:
        """Follow an invite link: the open table's id (the user now its guest), else None."""
        with self.db.session() as s:
            found = select(Table).where(col(Table.invite) == token, ~col(Table.closed))
            table = s.exec(found).first()
            if table is None or table.id is None:
                return None
            table_id, creator = table.id, table.created_by
            known = creator == user_id or s.get(TableGuest, (table_id, user_id)) is not None
        if not known:
            try:
                with self.db.session() as s:
                    s.add(TableGuest(table_id=table_id, user_id=user_id))
            except IntegrityError:  # the same link followed at once elsewhere: a guest anyway
                pass
        self._guests.add((table_id, user_id))
        return table_id

    def renew(self, table_id: int, user_id: int) -> str | None:
        """A new invite token for an open private table of the user's (its creator's):
        the old link opens nothing from now on; the guests who followed it stay. None
        when the table is not his, not private or closed."""
        with self.db.session() as s:
            table = s.get(Table, table_id)
            if table is None or table.closed or not table.private or table.created_by != user_id:
                return None
            table.invite = new_token()
            s.add(table)
            return table.invite
