"""The shuffle every player can check, at a live table, and «Мои раздачи» over HTTP
(docs/fairness.md, docs/protocol.md «table:state» `fair` and the /hands pages)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from app.engine import games, handfile
from app.engine.fairness import Mine, check_document, drawn_seed, fair_order
from app.engine.games import PRESETS, SCORERS
from app.engine.hand import Seat, shuffled_deals
from app.history import service as history
from app.i18n import signed_money
from app.models import HandRecord, User
from app.tables.fair import fair_view
from tests.faults.test_database import locked

from ..conftest import Browser, Server, start_server, stopped, unique_name
from ..tablekit import (
    CARD,
    SCALE,
    Player,
    balances,
    close_in_db,
    database,
    everyone,
    grant,
    hands,
    new_table,
    play_hand,
    refused,
    whose_turn,
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


def _leave(players: list[Player]) -> None:
    """Every person of the hand stands up: the table's session ends for its hands."""
    for p in players:
        p.until(lambda s: s["phase"] != "playing")
        assert p.call("table:stand") == {"ok": True}


@pytest.mark.parametrize("variant", ["classic", "shaha36", "svara32"])
def test_the_commitment_comes_before_the_cards_and_no_seed_while_the_table_plays(
    fast: Server, variant: str
) -> None:
    """Every game alike: «Готов» / «Новая раздача» carry the pages' seeds; no `table:state`
    ever carries a seed, and the players' copies show them once all of them left."""
    table = new_table(fast, variant)
    players = _players(fast, table, ["Иван", "Ёж"])
    watcher = Player(fast, table, unique_name("Мария"))
    watcher.join()
    committed = players[0].state["fair"]["next"]
    assert len(committed) == 64 and "seed" not in players[0].state["fair"]
    assert watcher.state["fair"]["next"] == committed
    dealer = players[0].state["next_dealer"]
    _play_one(players, SEEDS)
    hand_id = players[0].state["hand"]["id"]
    for p in players:
        states = sorted(_states(p), key=lambda s: s["version"])
        first_cards = next(  # shaha36: a page that never turned a card sees none until the end
            (i for i, s in enumerate(states) if CARD.search(json.dumps(s, ensure_ascii=False))),
            len(states),
        )
        # Before any card reached this page it had been told the commitment of this hand.
        assert any(s["fair"]["next"] == committed for s in states[:first_cards])
        for s in states:
            assert "seed" not in s["fair"] and "seeds" not in s["fair"]
        fair = p.state["fair"]
        assert fair["hand"] == hand_id and fair["commit"] == committed
        assert fair["checkable"] is True and fair["dealer"] == dealer
        assert fair["next"] != committed  # the next hand has its own
    stored = hands(fast, table)[-1].hand_file
    server_seed = stored["deals"][0]["seed"]
    for p in [*players, watcher]:
        assert server_seed not in json.dumps(p.received)
    copy = players[0].browser.http.get(f"{fast.url}/hands/{hand_id}.json").json()
    assert "seeds" not in copy and all("seed" not in d for d in copy["deals"])
    assert check_document(copy).problems  # nothing to check yet
    _leave(players)
    copy = players[0].browser.http.get(f"{fast.url}/hands/{hand_id}.json").json()
    mine = {s["name"]: s for s in copy["seeds"]}
    assert mine[players[0].name] == {"name": players[0].name, "seed": SEEDS[0], "kind": "person"}
    assert mine[players[1].name] == {"name": players[1].name, "seed": SEEDS[1], "kind": "person"}
    verdict = check_document(copy, mine=Mine(SEEDS[0], committed, players[0].name), bots=[])
    assert verdict.problems == [] and verdict.unproven == []
    # A spectator is never given the seeds: they would show every card dealt.
    assert watcher.browser.http.get(f"{fast.url}/hands/{hand_id}.json").status_code == 404
    for p in [*players, watcher]:
        p.close()


def test_a_folded_hand_stays_hidden_until_the_table_session_ends(fast: Server) -> None:
    """C-6.2: the player everyone folded to shows nothing, and a folder's cards are never
    shown. Nothing one participant receives while they still sit together — every
    `table:state`, event and HTTP answer, /hands/<id>.json too — holds a seed that would let
    him compute the other's cards: not the server's, not the other page's. Once both left,
    the seeds come, and the cards follow from them."""
    table = new_table(fast, "classic")
    ivan, ezh = players = _players(fast, table, ["Иван", "Ёж"])
    for p, seed in zip(players, ["c4" * 32, "5e" * 32], strict=True):
        assert p.call("table:ready", seed=seed) == {"ok": True}
    hand_id = ivan.until(lambda s: s["phase"] == "playing" and s["hand"]["id"])
    everyone(players, lambda s: s["phase"] == "playing" and s["hand"]["awaiting"])
    actor = whose_turn(players)
    assert "fold" in {o["do"] for o in actor.hand["legal"]}, actor.hand["legal"]
    assert actor.act("fold") == {"ok": True}
    everyone(players, lambda s: s["hand"]["phase"] == "finished")
    other = ezh if actor is ivan else ivan
    stored = hands(fast, table)[-1].hand_file
    secrets_ = [stored["deals"][0]["seed"], *(s["seed"] for s in stored["seeds"])]
    for p, q in [(ivan, ezh), (ezh, ivan)]:
        for suffix in ("", ".json", ".txt"):
            answer = p.browser.http.get(f"{fast.url}/hands/{hand_id}{suffix}")
            assert answer.status_code == 200
            p.received.append(("http" + suffix, answer.text))
        p.received.append(("http:list", p.browser.http.get(f"{fast.url}/hands").text))
        got = json.dumps(p.received, ensure_ascii=False)
        own_seed = next(s["seed"] for s in stored["seeds"] if s["name"] == p.name)
        for secret in secrets_:
            if secret != own_seed:
                assert secret not in got, (p.name, secret)
        hidden = stored["deals"][0][q.name]
        assert not set(hidden) & set(CARD.findall(got)), (p.name, hidden)
    # The table goes on: the hand's players still sit together, the seeds stay back.
    everyone(players, lambda s: s["phase"] != "playing")
    assert "seeds" not in other.browser.http.get(f"{fast.url}/hands/{hand_id}.json").json()
    _leave([actor])
    assert "seeds" not in other.browser.http.get(f"{fast.url}/hands/{hand_id}.json").json()
    _leave([other])
    copy = other.browser.http.get(f"{fast.url}/hands/{hand_id}.json").json()
    assert copy["seeds"] == stored["seeds"]
    deck = SCORERS["classic"].deck
    order = fair_order(deck, copy["deals"][0]["seed"], [s["seed"] for s in copy["seeds"]], 0)
    dealt = copy["deals"][0]["order"]
    k = dealt.index(actor.name)
    assert [str(order[k + j * len(dealt)]) for j in range(3)] == stored["deals"][0][actor.name]
    for p in players:
        p.close()


def test_a_closed_tables_hands_show_their_seeds(fast: Server) -> None:
    table = new_table(fast, "svara32")
    players = _players(fast, table, ["Вера", "Борис"])
    _play_one(players, SEEDS, rng_seed=4)
    hand_id = players[0].state["hand"]["id"]
    everyone(players, lambda s: s["phase"] != "playing")
    assert "seeds" not in players[1].browser.http.get(f"{fast.url}/hands/{hand_id}.json").json()
    close_in_db(fast, table)
    copy = players[1].browser.http.get(f"{fast.url}/hands/{hand_id}.json").json()
    assert [s["seed"] for s in copy["seeds"]] == [SEEDS[0], SEEDS[1]]
    for p in players:
        p.close()


def test_a_pages_seed_makes_the_deck_and_the_stored_hand_replays_from_its_seeds(
    fast: Server,
) -> None:
    table = new_table(fast, "classic")
    players = _players(fast, table, ["ПЕТЪР", "мария", "Ёж"])
    # The third page sends no seed: the server draws one and marks it silent.
    _play_one(players, SEEDS, rng_seed=8)
    everyone(players, lambda s: s["phase"] != "playing")
    fair = players[0].state["fair"]
    doc = hands(fast, table)[-1].hand_file
    seeds = [s["seed"] for s in doc["seeds"]]
    server_seed = doc["deals"][0]["seed"]
    assert [s["kind"] for s in doc["seeds"]] == ["person", "person", "silent"]
    assert seeds[2] == drawn_seed(server_seed, players[2].name)
    deck = SCORERS["classic"].deck
    last = len(fair["deals"]) - 1  # the final view shows the last deal's cards (a Svara)
    order = [str(c) for c in fair_order(deck, server_seed, seeds, last)]
    dealing = fair["deals"][last]
    for p in players:
        own = p.state["hand"]["players"]
        mine = next(x for x in own if x["name"] == p.name)
        if mine["cards"]:
            k = dealing.index(p.name)
            assert mine["cards"] == [order[k + j * len(dealing)] for j in range(3)]
    # Another seed from the first page would have given another deck.
    other = [str(c) for c in fair_order(deck, server_seed, ["b2" * 32, *seeds[1:]], last)]
    assert other != order
    # The stored hand file: the seeds, and a replay that deals the same cards.
    assert check_document(doc).problems == []
    replayed = handfile.replay(handfile.parse(doc))
    for d, deal in enumerate(replayed.deals):
        expect = [str(c) for c in fair_order(deck, server_seed, seeds, d)]
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
    everyone(players, lambda s: s["phase"] != "playing")
    hand_id = players[0].state["hand"]["id"]
    me = players[0].browser
    page = me.http.get(f"{fast.url}/hands")
    assert page.status_code == 200 and f'data-hand="{hand_id}"' in page.text
    assert me.http.get(f"{fast.url}/hands/{hand_id}").status_code == 200
    mine = me.http.get(f"{fast.url}/hands/{hand_id}.json")
    assert mine.status_code == 200
    copy = mine.json()
    assert "seeds" not in copy  # they come when the table's session ends
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
    everyone(players, lambda s: s["fair"]["hand"] != hand_id and s["phase"] != "playing")
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
    assert f'id="stat-net">{signed_money(net)}<' in stats.text
    assert f'id="stat-wins">{int(page1[0].net > 0) + int(page2[0].net > 0)}<' in stats.text
    settle = me.http.get(f"{fast.url}/table/{table}/settle")
    assert settle.status_code == 200 and players[1].name in settle.text
    assert signed_money(net) in settle.text
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
    problems = check_document(admin.http.get(f"{fast.url}/hands/{hand_id}.json").json()).problems
    assert problems[0] == "deal 0: the seed does not open the commitment"
    assert all("does not open the commitment" in p for p in problems)
    assert "refuses" in me.http.get(f"{fast.url}/hands/{hand_id}.txt?lang=en").text
    assert "не принимает" in me.http.get(f"{fast.url}/hands/{hand_id}.txt").text
    assert me.http.get(f"{fast.url}/hands/{hand_id}").status_code == 200
    assert me.http.get(f"{fast.url}/hands?page=0").status_code == 400
    assert me.http.get(f"{fast.url}/stats?since=yesterday").status_code == 400
    for p in players:
        p.close()


def test_a_refused_ready_cannot_change_the_deck(tmp_path: Path) -> None:
    """The «Готов» that would start the hand is refused (`code: busy`: here the database
    is locked, as a server that wants another deck might pretend); the retry brings another
    seed (a hostile or older page), but the hand is dealt with the first one its page sent
    for that commitment."""
    server = start_server(
        tmp_path, "eventlet", SVARA_TIMER_SCALE=str(SCALE), SVARA_DB_BUSY_TIMEOUT="0.5"
    )
    with stopped(server):
        table = new_table(server, "classic")
        first, last = _players(server, table, ["Иван", "Ёж"])
        committed = first.state["fair"]["next"]
        assert first.call("table:ready", seed=SEEDS[0]) == {"ok": True}
        last.until(lambda s: s["gathering"] is not None)
        with locked(server):
            reply = last.call("table:ready", seed=SEEDS[1])
            assert reply["ok"] is False and reply["code"] == "busy", reply
        assert last.state["fair"]["next"] == committed
        assert last.call("table:ready", seed="77" * 32) == {"ok": True}
        last.until(lambda s: s["phase"] == "playing")
        doc = hands(server, table)[-1].hand_file
        assert doc["deals"][0]["commit"] == committed
        assert [s["seed"] for s in doc["seeds"]] == [SEEDS[0], SEEDS[1]]
        for p in (first, last):
            p.close()


def test_a_hand_the_page_cannot_check_is_said_so() -> None:
    """A hand dealt by the older single-seed shuffle (resumed from an older file, C-8.5):
    the table names it and says it cannot be checked (the page raises the alarm) rather than
    sending `hand: null` as if there were no hand."""
    deck = SCORERS["classic"].deck
    hand = games.hand_class("classic")(
        PRESETS["classic"], [Seat("Иван", 100), Seat("Ёж", 100)], "Иван", shuffled_deals(deck)
    )
    fair = fair_view("ab" * 32, hand, 41)
    assert fair["hand"] == 41 and fair["checkable"] is False
    assert fair["commit"] == hand.deals[0].commit and fair["dealer"] == "Иван"
    assert "seed" not in fair and "seeds" not in fair
