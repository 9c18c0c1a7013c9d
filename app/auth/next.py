"""Where a visitor goes after logging in or signing up (docs/protocol.md, «/login»): the
page he came for (`next`: a table, an invite link, app/lobby/invites.py), checked to be a
path of this site, and the table it names for the login and sign-up pages' «Вас пригласили
за стол …». Here, with the accounts, so that the way in reads no lobby."""

from __future__ import annotations

import re

from sqlmodel import col, select

from app.models import Database, Table

NEXT_MAX = 512  # longer than any page's address here; a longer `next` is no link of ours
#: A path of this site and nothing else: one "/", then no second "/" or "\\" (a browser
#: reads "//host" and "/\\host" as another site), no scheme, no control characters.
LOCAL_PATH = re.compile(r"/(?![/\\])[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*")
LINKED = re.compile(r"/(?:invite/(?P<token>[A-Za-z0-9_-]{1,64})|table/(?P<table>[1-9][0-9]{0,15}))")


def safe_next(target: str | None) -> str | None:
    """`target` if it is a path of this site (where to go after logging in or signing up),
    else None: never another site (an open redirect), never a line break in a header."""
    if not target or len(target) > NEXT_MAX or "\\" in target:
        return None
    return target if LOCAL_PATH.fullmatch(target) else None


def invited_to(db: Database, target: str | None) -> str | None:
    """The name of the open table a `next` link is for, for the login and sign-up pages:
    an invite link names its table (its holder has the key), a table page only a public
    table — a private table's id says nothing to one who does not hold its token."""
    path = safe_next(target)
    found = LINKED.fullmatch(path.split("?", 1)[0]) if path else None
    if found is None:
        return None
    with db.session() as s:
        if found["token"] is not None:
            query = select(Table).where(col(Table.invite) == found["token"])
            table = s.exec(query.where(~col(Table.closed))).first()
        else:
            table = s.get(Table, int(found["table"]))
            if table is not None and table.private:
                return None
        return None if table is None or table.closed else table.name
