"""What the serving process does with the admin's notices (notices.py): the live side of a
grant, a ban, a new table, a kick and a closed table.

This is the one module of the admin that touches the live table runtime (app/tables/); it
runs in the poller's task, in the app context, like a timer callback, and calls each
table's methods (each takes the table's lock; the admin never does).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app
from flask_socketio import disconnect

from app import ledger
from app.auth.presence import EXTENSION as PRESENCE
from app.auth.presence import Presence, user_room
from app.auth.views import ENDED
from app.bots import fill_table
from app.extensions import socketio
from app.lobby.service import EXTENSION as LOBBY
from app.lobby.service import Lobby
from app.models import Database, Table, User
from app.models.db import EXTENSION as DB
from app.tables import EXTENSION as TABLES
from app.tables.model import Person
from app.tables.registry import Tables

from . import AdminError
from .notices import EXTENSION, Poller
from .tables import close_table

BALANCE = "account:balance"
KICKED = "table:kicked"


class Live:
    """The handlers of each notice kind, bound to one app's tables, lobby and connections."""

    def __init__(self, app: Flask):
        self.db: Database = app.extensions[DB]
        self.tables: Tables = app.extensions[TABLES]
        self.lobby: Lobby = app.extensions[LOBBY]
        self.presence: Presence = app.extensions[PRESENCE]

    def handlers(self) -> dict[str, Any]:
        return {
            "balance": self.balance,
            "ban": self.ban,
            "password": self.password,
            "table": self.table,
            "kick": self.kick,
            "close": self.close,
        }

    def _person(self, user_id: int) -> Person:
        with self.db.session() as s:
            user = s.get(User, user_id)
            if user is None:
                raise AdminError(f"no user {user_id}")
            return Person(user_id, user.name)

    def balance(self, data: dict[str, Any]) -> dict[str, Any]:
        """A grant: the user's pages get the new balance; at a table where he plays from his
        balance (classic, C-0.2) his money is shown anew between hands (a hand in play keeps
        its stakes; the runtime refreshes the money when it ends)."""
        person = self._person(data["user"])
        with self.db.session() as s:
            amount = ledger.user_balance(s, person.id)
        socketio.emit(BALANCE, {"balance": amount}, to=user_room(person.id))
        shown = [live.id for live in self.tables.live() if live.show_balance(person, amount)]
        return {"balance": amount, "tables": shown}

    def _hang_up(self, person: Person, reason: str) -> bool:
        """Close the user's connections, telling them why (his sessions ended); False if
        he had none."""
        sids = self.presence.sids(person.id)
        for sid in sids:
            socketio.emit(ENDED, {"reason": reason}, to=sid)
            disconnect(sid=sid, namespace="/")
        return bool(sids)

    def password(self, data: dict[str, Any]) -> dict[str, Any]:
        """A new password ended every session of the user: his connection too."""
        return {"disconnected": self._hang_up(self._person(data["user"]), "password changed")}

    def ban(self, data: dict[str, Any]) -> dict[str, Any]:
        """A ban: the user's socket is told why and closed, and he leaves every seat and
        queue (folding a hand in play, S-1.7 style, when his turn comes)."""
        person = self._person(data["user"])
        disconnected = self._hang_up(person, "banned")
        stood = []
        for live in self.tables.live():
            if live.member(person.name) is not None or live.queued(person.name):
                live.stand(person)
                stood.append(live.id)
        return {"disconnected": disconnected, "tables": stood}

    def table(self, data: dict[str, Any]) -> dict[str, Any]:
        """A new table: the lobby lists it at once (a private one is not listed); the bots
        it was created with (`--bots N`) sit down (docs/rules.md, «Bots»)."""
        with self.db.session() as s:
            table = s.get(Table, data["table"])
            bots = table.bots if table is not None else 0
        if bots:
            return {"bots": fill_table(current_app, data["table"], bots)}
        self.lobby.publish(data["table"])
        return {}

    def kick(self, data: dict[str, Any]) -> dict[str, Any]:
        """Stand a user up from a table (or take him out of its queue) and tell him."""
        person = self._person(data["user"])
        live = self.tables.find(data["table"])
        if live is None or (live.member(person.name) is None and not live.queued(person.name)):
            raise AdminError(f"{person.name} is not at table {data['table']}")
        live.stand(person, "admin")  # he reads why (`stood`, why "admin")
        socketio.emit(KICKED, {"table": live.id}, to=user_room(person.id))
        return {"table": live.id}

    def close(self, data: dict[str, Any]) -> dict[str, Any]:
        """Close a table: a live one stops its timers, has its hand in play cancelled and
        refunded and its stacks returned, and tells its watchers (the runtime's `close`);
        the lobby drops it."""
        table_id, reason = data["table"], data["reason"]
        result = self.tables.close(table_id, reason, lambda: self._close_in_db(table_id, reason))
        self.lobby.publish(table_id)
        return result

    def _close_in_db(self, table_id: int, reason: str) -> dict[str, Any]:
        with self.db.session() as s:
            table = s.get(Table, table_id)
            if table is None:
                raise AdminError(f"no table {table_id}")
            return close_table(s, table, reason)


def start(app: Flask) -> None:
    """Start applying the admin's notices (the serving process, once, after the tables)."""
    live = Live(app)
    poller = Poller(app, live.handlers(), live.tables.shard)
    app.extensions[EXTENSION] = poller
    poller.start()
