"""Money at one table at a time (docs/rules.md «Money at one table at a time», S-1.5) under
`SVARA_ASYNC_MODE=threading`, where two tables' events really run at once: «Иван» has the
table open on two devices, a stack table on each, and taps «Сесть» on both in the same
instant, round after round. One database transaction decides (app/ledger.py `buy_in`):
each round exactly one sit is taken and the other is refused with `money`; he never holds
stacks at both tables; the books verify and his money is all there after every round.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from app.models import Account, User

from ..conftest import Client, Server, start_server, stopped
from ..tablekit import SCALE, Player, books, database, grant, new_table

ROUNDS = 30
MONEY = 100_000


@pytest.fixture(scope="module")
def threaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(
        Path(tmp_path_factory.mktemp("one-table")) / "instance",
        "threading",
        SVARA_TIMER_SCALE=str(SCALE),
    )
    with stopped(running):
        yield running


def holdings(server: Server, name: str) -> tuple[int, dict[int, int]]:
    """His balance, and his stacks that hold money by table."""
    db = database(server)
    with db.session() as s:
        user = s.exec(select(User).where(User.name == name)).one()
        accounts = s.exec(select(Account).where(Account.user_id == user.id)).all()
    db.dispose()
    balance = sum(a.balance for a in accounts if a.kind == "user")
    stacks = {a.table_id: a.balance for a in accounts if a.kind == "stack" and a.balance}
    return balance, stacks  # type: ignore[return-value]


def sit(page: Client, table: int, barrier: threading.Barrier, replies: dict[int, Any]) -> None:
    """«Сесть» from one device, in the same instant as the other's."""
    barrier.wait()
    replies[table] = page.call("table:sit", {"table": table})


def test_two_sits_at_once_give_one_stack(threaded: Server) -> None:
    first, second = new_table(threaded, "shaha36"), new_table(threaded, "svara32")
    ivan = Player(threaded, first, "Иван")
    grant(threaded, ivan.name, MONEY)
    ivan.join()
    phone: Client = ivan.browser.socket(second)  # his second device, at the other table
    assert phone.call("table:join", {"table": second})["ok"]
    pages = {first: ivan.client, second: phone}
    try:
        for round_ in range(ROUNDS):
            barrier = threading.Barrier(2)
            replies: dict[int, Any] = {}
            tappers = [
                threading.Thread(target=sit, args=(pages[t], t, barrier, replies)) for t in pages
            ]
            for tapper in tappers:
                tapper.start()
            for tapper in tappers:
                tapper.join()
            taken = [t for t, reply in replies.items() if reply == {"ok": True}]
            balance, stacks = holdings(threaded, ivan.name)
            assert len(stacks) <= 1, (round_, replies, stacks)
            assert len(taken) == 1, (round_, replies)
            (other,) = set(pages) - set(taken)
            assert replies[other]["ok"] is False and replies[other]["code"] == "money"
            assert balance + sum(stacks.values()) == MONEY
            assert pages[taken[0]].call("table:stand", {"table": taken[0]}) == {"ok": True}
        assert holdings(threaded, ivan.name) == (MONEY, {})
        assert books(threaded).ok
    finally:
        phone.close()
        ivan.close()
