"""The shuffle every player can check (docs/fairness.md): known answers, properties, files."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import handfile
from app.engine.cards import Shuffle, commitment
from app.engine.fairness import (
    BOT,
    NO_MINE,
    PERSON,
    SILENT,
    FairDeals,
    FairnessError,
    Mine,
    ServerSeed,
    check_document,
    check_seed,
    deal_problem,
    drawn_seed,
    fair_order,
)
from app.engine.games import SCORERS
from app.engine.hand import PlayerSeed
from tests.engine.fairplay import play_fair

VECTORS = json.loads((Path(__file__).parent / "fair_vectors.json").read_text())
SEEDS = st.text("0123456789abcdef", min_size=32, max_size=128)


def reference_order(game: str, server: str, seeds: list[str], deal: int) -> list[str]:
    """docs/fairness.md read literally, with nothing of app.engine but the deck."""
    key = hmac.new(
        server.encode(), ":".join(["svara-fair/1", str(deal), *seeds]).encode(), hashlib.sha256
    ).digest()

    def stream():  # type: ignore[no-untyped-def]
        c = 0
        while True:
            block = hmac.new(key, c.to_bytes(8, "big"), hashlib.sha256).digest()
            yield from (int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4))
            c += 1

    cards = [str(c) for c in SCORERS[game].deck]
    words = stream()
    for i in range(len(cards) - 1, 0, -1):
        limit = 2**32 - 2**32 % (i + 1)
        w = next(words)
        while w >= limit:
            w = next(words)
        j = w % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: f"{v['game']}-deal{v['deal']}")
def test_known_answers(vector: dict[str, Any]) -> None:
    """The vectors that static/js/fair.js is held to as well (tests/browser/test_fair.py)."""
    game, server, seeds, deal = (
        vector["game"],
        vector["server_seed"],
        vector["seeds"],
        vector["deal"],
    )
    assert commitment(server) == vector["commit"]
    assert hashlib.sha256(b"svara-shuffle/1:" + server.encode()).hexdigest() == vector["commit"]
    order = [str(c) for c in fair_order(SCORERS[game].deck, server, seeds, deal)]
    assert order == vector["order"] == reference_order(game, server, seeds, deal)
    name = vector["drawn"]["name"]
    assert drawn_seed(server, name) == vector["drawn"]["seed"]
    message = f"svara-fair/1:drawn:{name}".encode()
    assert hmac.new(server.encode(), message, hashlib.sha256).hexdigest() == vector["drawn"]["seed"]


@settings(max_examples=60)
@given(st.sampled_from(sorted(SCORERS)), SEEDS, st.lists(SEEDS, min_size=2, max_size=6))
def test_every_order_is_the_whole_deck(game: str, server: str, seeds: list[str]) -> None:
    deck = SCORERS[game].deck
    assert sorted(fair_order(deck, server, seeds, 0)) == sorted(deck)


@settings(max_examples=60)
@given(SEEDS, st.lists(SEEDS, min_size=2, max_size=6), st.data())
def test_each_seed_and_each_deal_changes_the_deck(
    server: str, seeds: list[str], data: st.DataObject
) -> None:
    """No seed is ignored: changing any one of them (or the deal index) gives another deck."""
    deck = SCORERS["classic"].deck
    base = fair_order(deck, server, seeds, 0)
    i = data.draw(st.integers(0, len(seeds) - 1))
    other = data.draw(SEEDS.filter(lambda s: s != seeds[i]))
    changed = [*seeds[:i], other, *seeds[i + 1 :]]
    assert fair_order(deck, server, changed, 0) != base
    assert fair_order(deck, server, seeds, 1) != base
    if other != server:
        assert fair_order(deck, other, seeds, 0) != base


@pytest.mark.parametrize("bad", ["", "ABCDEF" * 6, "x" * 40, "ab" * 15, "a" * 129, 7, None])
def test_a_seed_is_lowercase_hex(bad: Any) -> None:
    with pytest.raises(FairnessError):
        check_seed(bad)


@pytest.mark.parametrize("game", sorted(SCORERS))
@pytest.mark.parametrize("seed", range(6))
def test_a_recorded_hand_replays_and_verifies_from_its_seeds(game: str, seed: int) -> None:
    hand, actions = play_fair(game, seed)
    doc = json.loads(json.dumps(handfile.record(hand, actions), ensure_ascii=False))
    assert [s["name"] for s in doc["seeds"]] == [s.name for s in hand.seats]
    assert [s["kind"] for s in doc["seeds"]] == [
        BOT if s.name.startswith("Гэри") else PERSON for s in hand.seats
    ]
    replayed = handfile.replay(handfile.parse(doc))
    assert replayed.result() == hand.result()
    assert check_document(doc).problems == []
    # Another seed of any one player: the file no longer verifies, nor replays.
    tampered = copy.deepcopy(doc)
    tampered["seeds"][1]["seed"] = "0" * 64
    assert check_document(tampered).problems
    # A bot's seed must be the one the committed server seed gives (no grinding), marked
    # drawn or not: the kind binds it.
    forged = copy.deepcopy(doc)
    bot = next((s for s in forged["seeds"] if s["kind"] == BOT), None)
    if bot is not None:
        bot["seed"] = "1" * 64
        del bot["drawn"]
        assert "the bot Гэри 🤖's seed is not the one drawn" in check_document(forged).problems[0]
    with pytest.raises(handfile.ReplayError, match="does not match its shuffle seeds"):
        handfile.replay(handfile.parse(tampered))


def test_svara_redeals_use_their_index() -> None:
    """Every deal of a hand has its own deck: deal d is derived with index d."""
    deck = SCORERS["classic"].deck
    server = ServerSeed.draw()
    seeds = [
        PlayerSeed("Иван", "a" * 64, kind=PERSON),
        PlayerSeed("Ёж", drawn_seed(server.seed, "Ёж"), True, SILENT),
    ]
    source = FairDeals(deck, server, seeds)
    first, again = source(["Иван", "Ёж"]), source(["Иван", "Ёж"])
    assert first.cards != again.cards
    assert deal_problem(deck, first, 0) is None and deal_problem(deck, again, 1) is None
    assert deal_problem(deck, again, 0) is not None


def test_a_players_copy_checks_only_what_it_shows() -> None:
    hand, actions = play_fair("classic", 3)
    doc = handfile.record(hand, actions)
    deal = doc["deals"][0]
    order = [k for k in deal if k not in ("commit", "seed")]
    mine = order[0]
    copy_ = {**doc, "deals": [{"order": order, mine: deal[mine], "commit": deal["commit"],
                               "seed": deal["seed"]}]}  # fmt: skip
    assert check_document(copy_).problems == []
    copy_["deals"][0][mine] = [deal[mine][0], None, None]
    assert check_document(copy_).problems == []
    wrong = next(c for c in [str(c) for c in SCORERS["classic"].deck] if c not in deal[mine])
    copy_["deals"][0][mine] = [wrong, None, None]
    assert check_document(copy_).problems == [
        f"deal 0 does not match its shuffle seeds: {mine}'s cards differ"
    ]


def test_an_older_file_with_one_seed_is_refused_unless_asked_for() -> None:
    deck = SCORERS["classic"].deck
    shuffle = Shuffle.new(deck)
    cards = {p: [str(c) for c in cs] for p, cs in shuffle.deal(["Иван", "Мария"]).items()}
    doc = {
        "format": "svara-hand/1",
        "variant": "classic",
        "players": [{"name": "Иван", "balance": 100}, {"name": "Мария", "balance": 100}],
        "dealer": "Иван",
        "deals": [{**cards, "commit": shuffle.commit, "seed": shuffle.seed}],
    }
    refused = check_document(doc)
    assert len(refused.problems) == 1 and "svara-shuffle/1" in refused.problems[0]
    assert "--legacy" in refused.problems[0]
    verdict = check_document(doc, legacy=True)
    assert verdict.problems == [] and "server could have chosen it" in verdict.unproven[0]
    doc["deals"][0]["seed"] = Shuffle.new(deck).seed
    assert check_document(doc, legacy=True).problems == [
        "deal 0: the seed does not open the commitment"
    ]


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([], "a hand file is a JSON object"),
        ({"variant": "nope"}, "unknown"),
        ({"variant": "classic", "players": [{"name": "Иван"}], "deals": []}, "at least one deal"),
        (
            {
                "variant": "classic",
                "players": [{"name": "Иван"}],
                "seeds": [{"name": "Ёж", "seed": "a" * 64}],
                "deals": [{}],
            },
            "same order",
        ),
    ],
)
def test_unreadable_files_are_refused(doc: Any, message: str) -> None:
    with pytest.raises(FairnessError, match=message):
        check_document(doc)


def test_a_resumed_hand_deals_its_redeals_from_its_seeds() -> None:
    """C-8.5: after a restart the deals a hand still needs come from its recorded seeds,
    with their own index, not from a fresh unchecked shuffle."""
    deck = SCORERS["classic"].deck
    server = ServerSeed.draw()
    seeds = [PlayerSeed("Иван", "c" * 64), PlayerSeed("Мария", "d" * 64)]
    live = FairDeals(deck, server, seeds)
    first, second = live(["Иван", "Мария"]), live(["Иван", "Мария"])
    resumed = handfile.continued_deals([first], deck)
    assert resumed(["Иван", "Мария"]) == first
    assert resumed(["Иван", "Мария"]) == second
    assert FairDeals.after([], deck) is None
    legacy = Shuffle.new(deck)
    old = handfile.Deal(legacy.deal(["Иван", "Мария"]), legacy.commit, legacy.seed)
    assert FairDeals.after([old], deck) is None


def _fair_doc(game: str = "classic", seed: int = 5) -> dict[str, Any]:
    hand, actions = play_fair(game, seed)
    doc: dict[str, Any] = json.loads(json.dumps(handfile.record(hand, actions)))
    return doc


def test_a_file_without_kinds_is_refused_unless_asked_for() -> None:
    """A seed not marked drawn may be a bot's that the server chose after every other
    seed: a file that does not say who gave each seed proves nothing about the deck."""
    doc = _fair_doc()
    for s in doc["seeds"]:
        s.pop("kind")
    assert "who gave each seed" in check_document(doc).problems[0]
    verdict = check_document(doc, legacy=True)
    assert verdict.problems == [] and "who gave each seed" in verdict.unproven[0]


@pytest.mark.parametrize("kind", [BOT, SILENT])
def test_every_bot_and_silent_seed_is_the_drawn_one(kind: str) -> None:
    """The forgery of a practice hand: the server leaves the bot's seed unmarked and
    picks it after the person's seed came. Whatever `drawn` says, the kind binds it."""
    doc = _fair_doc()
    bot = doc["seeds"][-1]
    assert bot["name"].startswith("Гэри")
    bot.update(kind=kind, seed="2" * 64)
    bot.pop("drawn")
    (problem,) = {p.split(": ", 1)[1] for p in check_document(doc).problems}
    assert "seed is not the one drawn from the server's seed" in problem
    # Given as a person's instead, it verifies only for whoever does not know it is a bot.
    bot["kind"] = PERSON
    assert any("is a bot" in p for p in check_document(doc, bots=[bot["name"]]).problems)


def test_a_persons_seed_is_never_marked_drawn() -> None:
    doc = _fair_doc()
    doc["seeds"][0]["drawn"] = True
    assert "marked both his page's and drawn" in check_document(doc).problems[0]


def test_the_pages_own_record_is_checked_offline() -> None:
    """`svara verify --seed --commit`: a new server seed with rebuilt cards opens its own
    commitment, but not the one the page was shown, and drops the page's seed."""
    doc = _fair_doc()
    me = doc["seeds"][0]
    commit = doc["deals"][0]["commit"]
    ok = check_document(doc, mine=Mine(me["seed"], commit, me["name"]))
    assert ok.problems == [] and NO_MINE not in ok.unproven
    assert NO_MINE in check_document(doc).unproven
    assert check_document(doc, mine=Mine(me["seed"], "e" * 64)).problems == [
        "the hand's commitment is not the one your page was shown"
    ]
    assert check_document(doc, mine=Mine("f" * 64, commit)).problems == [
        "your seed is not among the participants' seeds"
    ]
    # The page's own copy may carry the record itself (`mine`).
    doc["mine"] = {"name": me["name"], "seed": "f" * 64, "commit": commit}
    assert check_document(doc).problems == ["your seed is not among the participants' seeds"]
