"""Helpers of the admin tests: `svara admin` through click's runner on a temporary instance,
the instance's database for checking what changed, and real hands played into it through
the live runtime's own store (app/tables/store.py), exactly as a table records them."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import select as sa_select
from sqlmodel import SQLModel

from app import migrations
from app.engine import games
from app.engine.games import SCORERS
from app.engine.hand import Action, Seat
from app.engine.handfile import record
from app.engine.policies.simple import RandomBot
from app.engine.simulate import seeded_deals
from app.models import Database
from app.tables.store import TableStore
from cli.main import svara

PASSWORD = "correct horse"


class Admin:
    """`svara admin --instance DIR …` in this process, and the instance's database."""

    def __init__(self, instance: Path):
        self.instance = instance
        instance.mkdir(parents=True, exist_ok=True)
        self.db = Database(f"sqlite:///{instance / 'svara.db'}")
        migrations.upgrade(self.db.engine)

    def run(self, *args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(
            svara, ["admin", "--instance", str(self.instance), *args], input=input
        )

    def ok(self, *args: str) -> Any:
        """Run with --json; the command must succeed; its JSON output."""
        result = self.run(*args, "--json")
        assert result.exit_code == 0, (result.output, result.stderr, result.exception)
        return json.loads(result.stdout)

    def ok_or_fail(self, *args: str) -> Any:
        """Run with --json; the command must end with 0 or 1 (a check that failed)."""
        result = self.run(*args, "--json")
        assert result.exit_code in (0, 1), (result.output, result.stderr, result.exception)
        return json.loads(result.stdout)

    def refused(self, *args: str, match: str) -> Result:
        """Run; the command must end with status 2, the reason on stderr, nothing changed."""
        before = snapshot(self.db)
        result = self.run(*args)
        assert result.exit_code == 2, (result.output, result.exception)
        assert match in result.stderr, result.stderr
        assert snapshot(self.db) == before
        return result

    def user(self, name: str, *extra: str) -> dict[str, Any]:
        return self.ok("user", "create", name, "--password", PASSWORD, *extra)


def snapshot(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table: equal snapshots mean the command changed nothing."""
    with db.engine.connect() as connection:
        return {
            table.name: [tuple(row) for row in connection.execute(sa_select(table))]
            for table in SQLModel.metadata.sorted_tables
        }


@pytest.fixture
def admin(tmp_path: Path) -> Iterator[Admin]:
    made = Admin(tmp_path / "instance")
    yield made
    made.db.dispose()


def play(
    db: Database,
    table_id: int,
    names: list[str],
    variant: Any,
    seed: str,
    *,
    stop_after: int | None = None,
) -> int:
    """One hand played by random bots at `table_id`, recorded action by action through the
    runtime's store (hand file + ledger in one transaction each); `stop_after` leaves it in
    play. Players play from their balances (classic) or their stacks (the others)."""
    store = TableStore(db)
    cls = games.hand_class(variant.game)
    stacks = variant.game != "classic"
    money = store.money(table_id, names, stacks)
    deal = seeded_deals(SCORERS[variant.game].deck, seed)
    hand = cls(variant, [Seat(n, money[n]) for n in names], names[0], deal, None)
    hand_id = store.begin_hand(table_id, record(hand, []), hand.transfers, stacks)
    rng = random.Random(seed)
    bot = RandomBot(rng)
    actions: list[Action] = []
    while not hand.finished and (stop_after is None or len(actions) < stop_after):
        waiting = hand.awaiting()
        player = waiting[0] if len(waiting) == 1 else rng.choice(waiting)
        paid = len(hand.transfers)
        action = bot.choose(player, hand.legal(player), None)
        hand.act(action)
        actions.append(action)
        store.record(hand_id, record(hand, actions), hand.transfers[paid:], stacks, hand.finished)
    return hand_id
