"""Helpers of the table tests: a server with fast timers, tables and money put straight into
its database (as the admin CLI does from another process), and players that follow their own
`table:state` and play hands through real sockets.

Timers: the servers here run with `SVARA_TIMER_SCALE=SCALE`, so a rule's 30 s is 0.6 s. Tables
meant to be played deliberately set their timers to the 600 s maximum (12 s here); tables that
test a timer set it to the 5 s minimum (0.1 s here).
"""

from __future__ import annotations

import json
import queue
import random
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlmodel import col, select

from app import ledger
from app.lobby.service import create_table
from app.models import Account, Database, HandRecord, LedgerEntry, Table, User

from .conftest import SVARA, WAIT, Browser, Server, start_server, unique_name

SCALE = 0.02
SLOW = 600  # the longest timer a variant allows: 12 s at SCALE, never reached by a test
FAST = 5  # the shortest: 0.1 s at SCALE
SLOW_TIMERS = {
    "classic": {"turn_seconds": SLOW, "ready_seconds": SLOW, "svara_seconds": SLOW},
    "shaha36": {
        "turn_seconds": SLOW,
        "new_hand_seconds": SLOW,
        "tie_seconds": 120,
        "buy_in_seconds": 120,
        "show_seconds": 60,
        "offline_seconds": 3600,
    },
    "svara32": {"turn_seconds": SLOW, "svara_seconds": SLOW},
}
CARD = re.compile(r'"((?:10|[6-9TJQKA])[♠♣♥♦]|Jk)"')


def fast_server(instance: Path, async_mode: str) -> Server:
    return start_server(instance, async_mode, SVARA_TIMER_SCALE=str(SCALE))


def bots_server(instance: Path, async_mode: str) -> Server:
    """A fast server whose bots answer as soon as the scheduler fires (`BOT_THINK` 0)."""
    return start_server(instance, async_mode, SVARA_TIMER_SCALE=str(SCALE), SVARA_BOT_THINK="0")


def admin(server: Server, *args: str) -> Any:
    """`svara admin --instance <the server's> … --json` as its own process; its JSON."""
    done = subprocess.run(
        [SVARA, "admin", "--instance", str(server.instance), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=3 * WAIT,
        check=False,
    )
    assert done.returncode == 0, (done.stdout, done.stderr)
    return json.loads(done.stdout)


def database(server: Server) -> Database:
    return Database(f"sqlite:///{server.instance / 'svara.db'}")


def close_in_db(server: Server, table_id: int) -> None:
    """Mark a table closed in the database while its server is down (as `svara admin table
    close` does with no server running)."""
    db = database(server)
    with db.session() as s:
        table = s.get(Table, table_id)
        assert table is not None
        table.closed = True
        s.add(table)
    db.dispose()


def new_table(server: Server, variant: str, seats: int | None = None, **rules: Any) -> int:
    """A table made in the database, as the lobby form would; the server loads it on use."""
    game = {"classic": "classic", "shaha36": "shaha36"}.get(variant, "svara32")
    db = database(server)
    with db.session() as s:
        table = create_table(
            s, f"test {variant}", variant, seats=seats, rules={**SLOW_TIMERS[game], **rules}
        )
        assert table.id is not None
        table_id = table.id
    db.dispose()
    return table_id


def grant(where: Server | Database, name: str, amount: int) -> None:
    """Money for a test player, through the ledger like `svara admin balance grant` (C-0.1),
    in a server's database or in `where` itself."""
    db = database(where) if isinstance(where, Server) else where
    try:
        with db.session() as s:
            user = s.exec(select(User).where(User.name == name)).one()
            ledger.grant(s, user, amount, "test")
    finally:
        if db is not where:
            db.dispose()


def fund_house(server: Server, amount: int) -> None:
    """The host's grant to the house, whose money stakes the bots at money tables."""
    db = database(server)
    with db.session() as s:
        ledger.grant_house(s, amount, "bots' bankroll")
    db.dispose()


def balances(server: Server, names: list[str]) -> dict[str, int]:
    db = database(server)
    with db.session() as s:
        out = {}
        for name in names:
            user = s.exec(select(User).where(User.name == name)).one()
            assert user.id is not None
            out[name] = ledger.user_balance(s, user.id)
    db.dispose()
    return out


def grants(server: Server, name: str) -> list[tuple[int, str, str]]:
    """(amount, reason, actor) of the grants to `name`'s balance, oldest first."""
    db = database(server)
    try:
        with db.session() as s:
            user = s.exec(select(User).where(User.name == name)).one()
            rows = s.exec(
                select(LedgerEntry.amount, LedgerEntry.reason, LedgerEntry.actor)
                .join(Account, col(Account.id) == LedgerEntry.account_id)
                .where(Account.user_id == user.id, LedgerEntry.kind == "grant")
                .order_by(col(LedgerEntry.id))
            ).all()
            return [(a, r, w) for a, r, w in rows]
    finally:
        db.dispose()


def books(server: Server) -> ledger.Books:
    db = database(server)
    with db.session() as s:
        found = ledger.verify(s)
    db.dispose()
    return found


def hands(server: Server, table_id: int) -> list[HandRecord]:
    db = database(server)
    with db.session() as s:
        rows = list(
            s.exec(
                select(HandRecord).where(HandRecord.table_id == table_id).order_by(HandRecord.id)
            ).all()
        )
    db.dispose()
    return rows


class Player:
    """A logged-in user with a socket at one table (as its page connects: naming the table,
    C-8.2), who keeps his latest `table:state`."""

    def __init__(self, server: Server, table_id: int, name: str | None = None):
        self.name = name or unique_name("t")
        self.table = table_id
        self.browser = Browser(server.url)
        self.browser.register(self.name)
        self.client = self.browser.socket(table_id or None)  # 0: no table yet (a practice match)
        self.state: dict[str, Any] = {}
        self.received: list[tuple[str, Any]] = []  # every event, for the leak test

    # --- talking to the server ----------------------------------------------------------
    def call(self, event: str, **data: Any) -> Any:
        reply = self.client.call(event, {"table": self.table, **data})
        self.received.append(("ack:" + event, reply))
        return reply

    def join(self, since: int | None = None) -> dict[str, Any]:
        reply = self.call("table:join", **({} if since is None else {"since": since}))
        assert reply["ok"], reply
        self._keep(reply["state"])
        return reply

    def sit(self, **data: Any) -> None:
        reply = self.call("table:sit", **data)
        assert reply == {"ok": True}, reply

    def act(self, do: str, to: int | None = None, deal: str | None = None) -> Any:
        data: dict[str, Any] = {"version": self.state["version"], "do": do}
        if to is not None:
            data["to"] = to
        if deal is not None:
            data["deal"] = deal
        return self.call("table:act", **data)

    # --- following the table ------------------------------------------------------------
    def _keep(self, state: dict[str, Any]) -> None:
        if not self.state or state["version"] >= self.state["version"]:
            self.state = state

    def _next_event(self, timeout: float) -> tuple[str, Any]:
        try:
            name, data = self.client.events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"{self.name}: nothing more within {timeout} s; last state {self.state}"
            ) from None
        self.received.append((name, data))
        if name == "table:state" and data["table"] == self.table:
            self._keep(data)
        return name, data

    def until(self, check: Callable[[dict[str, Any]], Any], timeout: float = WAIT) -> Any:
        """Wait (on received events, no sleeping) until `check(state)` is true."""
        if self.state and (found := check(self.state)):
            return found
        while True:
            name, _ = self._next_event(timeout)
            if name == "table:state" and (found := check(self.state)):
                return found

    def event(self, wanted: str, timeout: float = WAIT) -> Any:
        """The payload of the next `wanted` event."""
        while True:
            name, data = self._next_event(timeout)
            if name == wanted:
                return data

    def drain(self) -> None:
        """Take in whatever has arrived (for the leak test's record)."""
        while True:
            try:
                name, data = self.client.events.get_nowait()
            except queue.Empty:
                return
            self.received.append((name, data))
            if name == "table:state" and data["table"] == self.table:
                self._keep(data)

    def reconnect(self, server: Server | None = None) -> dict[str, Any]:
        """A new socket (to a restarted `server` if given); returns the state it is sent."""
        if server is not None:
            self.browser.url = server.url
        self.client.close()
        self.client = self.browser.socket(self.table)
        self.state = {}
        return self.event("table:state")

    def close(self) -> None:
        self.client.close()

    # --- reading the state --------------------------------------------------------------
    @property
    def hand(self) -> dict[str, Any] | None:
        return self.state.get("hand")

    def my_turn(self) -> bool:
        hand = self.hand
        return bool(
            hand
            and self.state["phase"] == "playing"
            and hand["legal"]
            and self.name in hand["awaiting"]
        )

    def cards_seen(self) -> set[str]:
        """Every card named anywhere in what this player received."""
        return set(CARD.findall(json.dumps(self.received, ensure_ascii=False)))


def seat(
    server: Server, table_id: int, count: int, money: int, names: tuple[str, ...] = (), **sit: Any
) -> list[Player]:
    """`count` new players with `money` each, joined and seated in order; named after
    `names` (made unique per server) when given."""
    players = [
        Player(server, table_id, unique_name(names[i]) if i < len(names) else None)
        for i in range(count)
    ]
    for p in players:
        if money:
            grant(server, p.name, money)
        p.join()
        p.sit(**sit)
    for p in players:
        p.until(lambda s: len([x for x in s["seats"] if x]) == count)
    return players


def seat_and_ready(server: Server, players: list[Player], money: int) -> None:
    """`players` (named as they are) each get `money`, join and sit, then all press «Готов»
    (C-1.3): the hand is dealt."""
    for p in players:
        grant(server, p.name, money)
        p.join()
        p.sit()
    for p in players:
        assert p.call("table:ready") == {"ok": True}


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random legal decision; a range (a raise) at its lowest amount."""
    option = dict(rng.choice(legal))
    if option.get("to") is None and option.get("min_to") is not None:
        option["to"] = option["min_to"]
    return {k: option[k] for k in ("do", "to", "deal") if option.get(k) is not None}


def whose_turn(players: list[Player]) -> Player:
    """The player the hand waits for, once he has the state the others have."""
    watcher = players[0]
    watcher.until(lambda s: s["phase"] == "playing" and s["hand"]["awaiting"])
    actor = next(p for p in players if p.name == watcher.hand["awaiting"][0])  # type: ignore[index]
    actor.until(lambda s, v=watcher.state["version"]: s["version"] >= v)
    return actor


def decide(players: list[Player], actor: Player, **decision: Any) -> Any:
    """`actor` sends a decision; once applied, every player has the state it made."""
    sent = actor.state["version"]
    reply = actor.act(**decision)
    if reply == {"ok": True}:
        actor.until(lambda s: s["version"] > sent)
        everyone(players, lambda s, v=actor.state["version"]: s["version"] >= v)
    return reply


def play_hand(players: list[Player], rng: random.Random, limit: int = 400) -> dict[str, Any]:
    """Play the hand in play to its end with random legal decisions, each sent by the
    player whose turn it is, answering the version he last saw; returns the final view."""
    hand_id = players[0].until(lambda s: s["phase"] == "playing" and s["hand"]["id"])
    for _ in range(limit):
        watcher = players[0]
        watcher.until(
            lambda s: s["hand"]["id"] != hand_id or s["phase"] != "playing" or s["hand"]["awaiting"]
        )
        if watcher.state["phase"] != "playing" or watcher.hand["id"] != hand_id:  # type: ignore[index]
            break
        actor = whose_turn(players)
        reply = decide(players, actor, **choose(actor.hand["legal"], rng))  # type: ignore[index]
        if reply.get("code") == "stale":  # the table moved on (someone's connection): resync
            actor.event("error")
            continue
        assert reply == {"ok": True}, reply
    else:
        raise AssertionError("the hand did not end")
    return players[0].until(
        lambda s: s["hand"]["phase"] == "finished" and s["hand"]["id"] == hand_id and s["hand"]
    )


def everyone(players: list[Player], check: Callable[[dict[str, Any]], Any]) -> None:
    for p in players:
        p.until(check)


def refused(player: Player, event: str, data: Any, code: str | None = None) -> dict[str, Any]:
    """Send an event the server must refuse: an `error` comes back and nothing changed."""
    version = player.state.get("version")
    reply = player.client.call(event, data)
    assert reply["ok"] is False, reply
    error = player.event("error")
    assert error["event"] == event and error["reason"]
    if code is not None:
        assert error["code"] == code, error
    player.drain()
    assert player.state.get("version") == version
    return error
