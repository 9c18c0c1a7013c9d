"""`make run`'s first start (`DEMO_HOUSE`, cli/serve.py): the house gets the demo's float for
the bots — a grant with its ledger row — and two bots sit at the demo table, staked by it;
a restart grants nothing again, and without `DEMO_HOUSE` the house starts empty."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import col, select

from app.admin.money import DEMO_REASON
from app.models import HOUSE, Account, Database, LedgerEntry

from ..conftest import start_server, stopped
from ..tablekit import admin, books


def _house_grants(instance: Path) -> list[tuple[int, str, str]]:
    server_db = Database(f"sqlite:///{instance / 'svara.db'}")
    try:
        with server_db.session() as s:
            rows = s.exec(
                select(LedgerEntry.amount, LedgerEntry.reason, LedgerEntry.actor)
                .join(Account, col(Account.id) == LedgerEntry.account_id)
                .where(Account.kind == HOUSE, LedgerEntry.kind == "grant")
            ).all()
            return [(a, r, w) for a, r, w in rows]
    finally:
        server_db.dispose()


def test_the_demo_starts_with_money_for_its_bots(tmp_path: Path) -> None:
    instance = tmp_path / "demo"
    with stopped(start_server(instance, "threading", SVARA_DEMO_HOUSE="10000")) as server:
        assert _house_grants(instance) == [(10_000, DEMO_REASON, "svara serve")]
        (demo,) = admin(server, "table", "list")
        assert (demo["name"], demo["bots"]) == ("Демо", 2)
        house = admin(server, "house", "show")
        assert house["house"] + house["staked_on_bots"] == 10_000
        assert house["staked_on_bots"] == 2 * 100 * demo["ante"]  # C-0.2: 100 antes a bot
        assert books(server).ok
    with stopped(start_server(instance, "threading", SVARA_DEMO_HOUSE="10000")):
        assert _house_grants(instance) == [(10_000, DEMO_REASON, "svara serve")]


def test_without_the_demo_setting_the_house_starts_empty(tmp_path: Path) -> None:
    instance = tmp_path / "plain"
    with stopped(start_server(instance, "threading")) as server:
        assert _house_grants(instance) == []
        assert admin(server, "house", "show") == {"house": 0, "staked_on_bots": 0}
