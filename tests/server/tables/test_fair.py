"""The shuffle every player can check, at a live table, and «Мои раздачи» over HTTP
(docs/fairness.md, docs/protocol.md «table:state» `fair` and the /hands pages)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from sqlmodel import select

from app.engine import handfile
from app.engine.cards import commitment
from app.engine.fairness import check_document, fair_order
from app.engine.games import SCORERS
from app.history import service as history
from app.models import HandRecord, User

from ..conftest import Browser, Server, unique_name
from ..tablekit import (
    CARD,
    Player,
    balances,
    database,
    everyone,
    grant,
    hands,
    new_table,
    play_hand,
    refused,
)

SEEDS = {0: "a1" * 32, 1: "0123456789abcdef" * 4}


def _players(server: Server, table: int, names: list[str], money: int = 1000) -> list[Player]:
    players = [Player(server, table, unique_name(n)) for n in names]
    for p in players:
        grant(server, p.name, money)
        p.join()
        p.sit()
    everyone(players, lambda s: len([x for x in s["seats"] if x]) == len(players))
    return players


def _states(p: Player) -> list[dict[str, Any]]:
    return [d for name, d in p.received if name == "table:state" and d["table"] == p.table] + [
        d["state"] for name, d in p.received if name == "ack:table:join"
    ]


def _play_one(players: list[Player], seeds: dict[int, str], rng_seed: int = 3) -> dict[str, Any]:
    for i, p in enumerate(players):
        extra = {"seed": seeds[i]} if i in seeds else {}
        assert p.call("table:ready", **extra) == {"ok": True}
    return play_hand(players, random.Random(rng_seed))


@pytest.mark.parametrize("variant", ["classic", "shaha36", "svara32"])
def test_the_commitment_comes_before_the_cards_and_the_seed_after_the_hand(
    fast: Server, variant: str
) -> None:
    """Every game alike: «Готов» / «Новая раздача» carry the pages' seeds (docs/fairness.md)."""
    table = new_table(fast, variant)
    players = _players(fast, table, ["Иван", "Ёж"])
    watcher = Player(fast, table, unique_name("Мария"))
    watcher.join()
    committed = players[0].state["fair"]["next"]
    assert len(committed) == 64 and players[0].state["fair"]["seed"] is None
    assert watcher.state["fair"]["next"] == committed
    _play_one(players, SEEDS)
    hand_id = players[0].state["hand"]["id"]
    everyone(players, lambda s: s["fair"]["seed"] is not None)
    for p in players:
        states = sorted(_states(p), key=lambda s: s["version"])
        first_cards = next(  # shaha36: a page that never turned a card sees none until the end
            (i for i, s in enumerate(states) if CARD.search(json.dumps(s, ensure_ascii=False))),
            len(states),
        )
        # Before any card reached this page it had been told the commitment of this hand.
        assert any(s["fair"]["next"] == committed for s in states[:first_cards])
        for s in states:
            fair = s["fair"]
            if s["hand"] and s["hand"]["phase"] != "finished":
                assert fair["seed"] is None and fair["seeds"] is None  # only after the hand
        fair = p.state["fair"]
        assert fair["hand"] == hand_id and fair["commit"] == committed
        assert commitment(fair["seed"]) == committed
        assert fair["next"] != committed  # the next hand has its own
    mine = {s["name"]: s for s in players[0].state["fair"]["seeds"]}
    assert mine[players[0].name] == {"name": players[0].name, "seed": SEEDS[0]}
    assert mine[players[1].name] == {"name": players[1].name, "seed": SEEDS[1]}
    # A spectator is never given the seeds: they would show every card dealt.
    watcher.until(lambda s: s["fair"]["hand"] == hand_id and s["phase"] != "playing")
    assert watcher.state["fair"]["seed"] is None and watcher.state["fair"]["seeds"] is None
    assert watcher.state["fair"]["commit"] == committed
    for p in [*players, watcher]:
        p.close()


def test_a_pages_seed_makes_the_deck_and_the_stored_hand_replays_from_its_seeds(
    fast: Server,
) -> None:
    table = new_table(fast, "classic")
    players = _players(fast, table, ["ПЕТЪР", "мария", "Ёж"])
    # The third page sends no seed: the server draws one and marks it.
    _play_one(players, SEEDS, rng_seed=8)
    everyone(players, lambda s: s["fair"]["seed"] is not None)
    fair = players[0].state["fair"]
    seeds = [s["seed"] for s in fair["seeds"]]
    assert [s.get("drawn", False) for s in fair["seeds"]] == [False, False, True]
    deck = SCORERS["classic"].deck
    last = len(fair["deals"]) - 1  # the final view shows the last deal's cards (a Svara)
    order = [str(c) for c in fair_order(deck, fair["seed"], seeds, last)]
    dealing = fair["deals"][last]
    for p in players:
        own = p.state["hand"]["players"]
        mine = next(x for x in own if x["name"] == p.name)
        if mine["cards"]:
            k = dealing.index(p.name)
            assert mine["cards"] == [order[k + j * len(dealing)] for j in range(3)]
    # Another seed from the first page would have given another deck.
    other = [str(c) for c in fair_order(deck, fair["seed"], ["b2" * 32, *seeds[1:]], last)]
    assert other != order
    # The stored hand file: the seeds, and a replay that deals the same cards.
    record = hands(fast, table)[-1]
    doc = record.hand_file
    assert doc["seeds"] == fair["seeds"]
    assert check_document(doc) == []
    replayed = handfile.replay(handfile.parse(doc))
    for d, deal in enumerate(replayed.deals):
        expect = [str(c) for c in fair_order(deck, fair["seed"], seeds, d)]
        n = len(deal.cards)
        for k, (name, cards) in enumerate(deal.cards.items()):
            assert [str(c) for c in cards] == [expect[k + j * n] for j in range(3)], name
    for p in players:
        p.close()


def test_a_seed_that_is_not_one_is_refused(fast: Server) -> None:
    table = new_table(fast, "classic")
    players = _players(fast, table, ["Иван", "Ёж"])
    for bad in ["XYZ", "ab" * 8, "A" * 64]:
        refused(players[0], "table:ready", {"table": table, "seed": bad}, "bad_request")
    refused(players[0], "table:ready", {"table": table, "seed": 5}, None)
    assert players[0].state["seats"][0]["answer"] is None
    for p in players:
        p.close()


def _make_admin(server: Server, name: str) -> None:
    db = database(server)
    with db.session() as s:
        user = s.exec(select(User).where(User.name == name)).one()
        user.is_admin = True
        s.add(user)
    db.dispose()


def test_my_hands_are_mine_alone(fast: Server) -> None:
    """A player sees his hand, its file and its text; anyone else gets 404 for all three,
    an administrator may open it; the player's copy holds only the cards he saw."""
    table = new_table(fast, "classic")
    players = _players(fast, table, ["Иван", "Ёж"])
    _play_one(players, SEEDS, rng_seed=11)
    everyone(players, lambda s: s["fair"]["seed"] is not None)
    hand_id = players[0].state["hand"]["id"]
    me = players[0].browser
    page = me.http.get(f"{fast.url}/hands")
    assert page.status_code == 200 and f'data-hand="{hand_id}"' in page.text
    assert me.http.get(f"{fast.url}/hands/{hand_id}").status_code == 200
    mine = me.http.get(f"{fast.url}/hands/{hand_id}.json")
    assert mine.status_code == 200
    copy = mine.json()
    assert check_document(copy) == []
    assert copy["deals"][0]["order"] == players[0].state["fair"]["deals"][0]
    seen = {
        c
        for name, d in players[0].received
        for c in CARD.findall(json.dumps(d, ensure_ascii=False))
    }
    in_copy = set(CARD.findall(json.dumps(copy["deals"], ensure_ascii=False)))
    assert in_copy <= seen  # nothing he was not shown (the seeds aside: docs/fairness.md)
    text = me.http.get(f"{fast.url}/hands/{hand_id}.txt")
    assert text.status_code == 200 and text.headers["Content-Type"].startswith("text/plain")
    assert players[1].name in text.text
    stranger = Browser(fast.url)
    stranger.register(unique_name("Гость"))
    for suffix in ("", ".json", ".txt"):
        assert stranger.http.get(f"{fast.url}/hands/{hand_id}{suffix}").status_code == 404
    assert stranger.http.get(f"{fast.url}/hands/999999").status_code == 404
    assert f'data-hand="{hand_id}"' not in stranger.http.get(f"{fast.url}/hands").text
    admin_name = unique_name("Админ")
    admin = Browser(fast.url)
    admin.register(admin_name)
    _make_admin(fast, admin_name)
    assert admin.http.get(f"{fast.url}/hands/{hand_id}").status_code == 200
    assert (
        admin.http.get(f"{fast.url}/hands/{hand_id}.json").json()
        == hands(fast, table)[-1].hand_file
    )
    # A second hand: newest first, and paged.
    everyone(players, lambda s: s["phase"] != "playing")
    _play_one(players, {}, rng_seed=12)
    everyone(players, lambda s: s["fair"]["hand"] != hand_id and s["fair"]["seed"] is not None)
    second = players[0].state["hand"]["id"]
    listed = me.http.get(f"{fast.url}/hands").text
    assert listed.index(f'data-hand="{second}"') < listed.index(f'data-hand="{hand_id}"')
    db = database(fast)
    with db.session() as s:
        user = s.exec(select(User).where(User.name == players[0].name)).one()
        page1, more1 = history.my_hands(s, user, 1, per_page=1)
        page2, more2 = history.my_hands(s, user, 2, per_page=1)
    db.dispose()
    assert ([r.id for r in page1], more1, [r.id for r in page2], more2) == (
        [second],
        True,
        [hand_id],
        False,
    )
    # The night's accounts: his figures, and the table's settle-up for its players only.
    net = balances(fast, [players[0].name])[players[0].name] - 1000
    stats = me.http.get(f"{fast.url}/stats")
    assert stats.status_code == 200 and 'id="stat-hands">2<' in stats.text
    assert f'id="stat-net">{net:+d}<' in stats.text
    assert f'id="stat-wins">{int(page1[0].net > 0) + int(page2[0].net > 0)}<' in stats.text
    settle = me.http.get(f"{fast.url}/table/{table}/settle")
    assert settle.status_code == 200 and players[1].name in settle.text
    assert f"{net:+d}" in settle.text
    assert stranger.http.get(f"{fast.url}/table/{table}/settle").status_code == 404
    # A stored file whose server seed was changed: his copy and its text still come, and
    # `svara verify` (check_document) says what is wrong.
    db = database(fast)
    with db.session() as s:
        record = s.get(HandRecord, hand_id)
        assert record is not None and record.hand_file is not None
        doc = json.loads(json.dumps(record.hand_file))
        for deal in doc["deals"]:
            deal["seed"] = "9" * 64
        record.hand_file = doc
        s.add(record)
    db.dispose()
    broken = me.http.get(f"{fast.url}/hands/{hand_id}.json")
    assert broken.status_code == 200
    problems = check_document(broken.json())
    assert problems[0] == "deal 0: the seed does not open the commitment"
    assert all("does not open the commitment" in p for p in problems)
    assert "refuses" in me.http.get(f"{fast.url}/hands/{hand_id}.txt").text
    assert me.http.get(f"{fast.url}/hands/{hand_id}").status_code == 200
    assert me.http.get(f"{fast.url}/hands?page=0").status_code == 400
    assert me.http.get(f"{fast.url}/stats?since=yesterday").status_code == 400
    for p in players:
        p.close()
