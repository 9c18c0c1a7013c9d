"""Bots bring no money into the world (docs/rules.md, «Bots»), against a real `svara serve`:
the host funds the house (`svara admin house grant`), the house stakes the bots at a money
table, hands are played, and the total granted is what the host granted — the ledger sums
the same before and after; the settle-up counts a bot's result as the house's."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import select

from app.admin.money import show_house
from app.auth.roster import ROSTER
from app.lobby.service import create_table
from app.models import User

from ..conftest import ASYNC_MODES, Server, unique_name
from ..tablekit import (
    SLOW_TIMERS,
    Player,
    admin,
    balances,
    books,
    bots_server,
    choose,
    database,
    grant,
)

HOUSE = 50_000


@pytest.fixture(scope="module", params=ASYNC_MODES)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    running = bots_server(Path(tmp_path_factory.mktemp(f"money-{request.param}")), request.param)
    try:
        yield running
    finally:
        running.stop()


def house_now(server: Server) -> dict[str, int]:
    """`svara admin house show`, read in this process (no subprocess's start-up time)."""
    db = database(server)
    with db.session() as s:
        shown = show_house(s)
    db.dispose()
    return shown


def creator_at(server: Server, variant: str, seats: int) -> Player:
    """A player with 1,000 at a new table of his own (the bots switch is the creator's)."""
    creator = Player(server, 0, unique_name("Иван"))
    grant(server, creator.name, 1000)
    db = database(server)
    with db.session() as s:
        user = s.exec(select(User).where(User.name == creator.name)).one()
        table = create_table(
            s, "с ботами", variant, seats=seats, rules=SLOW_TIMERS[variant], created_by=user.id
        )
        creator.table = table.id  # type: ignore[assignment]
    db.dispose()
    creator.join()
    return creator


def play_hands(player: Player, count: int, rng: random.Random) -> int:
    """`count` hands where the person plays random legal decisions against the bots; the
    hands' ids."""
    played = set()
    for _ in range(count):
        player.until(lambda s: "ready" in s["you"]["can"] or s["phase"] == "playing")
        if player.state["phase"] != "playing":
            assert player.call("table:ready") == {"ok": True}
        hand = player.until(lambda s: s["phase"] == "playing" and s["hand"]["id"])
        played.add(hand)
        for _ in range(400):
            if player.state["phase"] != "playing" or player.hand["id"] != hand:  # type: ignore[index]
                break
            if player.my_turn():
                reply = player.act(**choose(player.hand["legal"], rng))  # type: ignore[index]
                assert reply["ok"] or reply["code"] == "stale", reply
            player.until(lambda s, v=player.state["version"]: s["version"] > v)
        player.until(lambda s, h=hand: s["hand"]["id"] == h and s["hand"]["phase"] == "finished")
    return len(played)


def test_the_house_stakes_the_bots_and_no_money_is_made(server: Server) -> None:
    """Six hands against two bots raised the total granted by 2,060 and the settle-up told
    people to pay «Бот Вася»: now the books' total granted moves only with the host's own
    grants, and the bots' results are the house's."""
    since = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    funded = admin(server, "house", "grant", str(HOUSE), "--reason", "bots' bankroll")
    assert funded["house"] == HOUSE
    creator = creator_at(server, "classic", 4)  # two bots: one seat stays for a person
    granted = books(server).granted
    assert granted == HOUSE + 1000
    creator.sit()
    reply = creator.call("table:bots", fill=True)
    assert reply["ok"] and len(reply["bots"]) == 2, reply
    bots = reply["bots"]
    creator.until(lambda s: len([x for x in s["seats"] if x]) == 3)
    rng = random.Random(2026)
    assert play_hands(creator, 1, rng) == 1
    staked = house_now(server)  # read in-process: he has a gathering period to answer in
    assert staked["staked_on_bots"] > 0 and books(server).granted == granted
    assert play_hands(creator, 5, rng) == 5
    assert creator.call("table:bots", fill=False)["ok"]  # before C-1.7 stands him up
    creator.until(lambda s: not {x["name"] for x in s["seats"] if x} & set(bots))
    after = books(server)
    assert after.ok, after.problems
    assert after.granted == granted  # no grant but the host's
    assert balances(server, bots) == dict.fromkeys(bots, 0)  # their money went home
    mine = balances(server, [creator.name])[creator.name]
    house = admin(server, "house", "show")
    assert house == {"house": granted - mine, "staked_on_bots": 0}  # classic: no rake here
    settled = admin(server, "settle", "--since", since)
    assert set(settled["results"]) <= {creator.name, "house"}, settled
    assert settled["results"].get("house", 0) == house["house"] - HOUSE  # the bots' result
    for payment in settled["payments"]:
        assert not {payment["payer"], payment["payee"]} & set(ROSTER), payment
    creator.close()


def test_an_empty_house_seats_no_bot_at_a_money_table(server: Server) -> None:
    """With nothing in the house a bot does not sit at a money table: the creator's switch
    says why, and nothing moves."""
    house = admin(server, "house", "show")["house"]
    if house:
        admin(server, "house", "grant", str(-house), "--reason", "closing the bank")
    creator = creator_at(server, "shaha36", 3)
    before = books(server)
    reply = creator.call("table:bots", fill=True)
    assert reply["ok"] is False and "house" in reply["error"], reply
    after = books(server)
    assert (after.granted, after.house, after.bots) == (before.granted, 0, before.bots)
    assert not [x for x in creator.state["seats"] if x]
    creator.close()
