"""Bots and `svara simulate`: generic over every registered game, reproducible, conserving."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from click.testing import CliRunner

from app.engine import games
from app.engine.classic import ClassicBot, classic_strength
from app.engine.games import get_variant
from app.engine.hand import Action, Legal
from app.engine.policies.base import Bot, concrete
from app.engine.policies.simple import RandomBot
from app.engine.simulate import session, simulate
from cli.main import svara

CLASSIC = get_variant("classic")


def test_concrete_picks_inside_a_range() -> None:
    rng = random.Random(1)
    ranged = Legal("raise", min_to=40, max_to=90, price=40)
    picks = {concrete("anna", ranged, rng).to for _ in range(200)}
    assert picks <= set(range(40, 91)) and len(picks) > 10
    assert concrete("anna", Legal("bet", 20, 20), rng) == Action("anna", "bet", 20)
    assert concrete("anna", Legal("propose", deal="split"), rng).deal == "split"


@pytest.mark.parametrize("game", games.GAMES)
def test_random_bots_play_every_game_through_the_hand_api(game: str) -> None:
    """The random bot needs nothing but `legal`: it finishes hands of any game."""
    result = simulate(get_variant(game), players=4, hands=60, seed=7)
    assert result["hands"] == 60 and result["conserved"] is True
    assert result["actions"] >= 60


@pytest.mark.slow  # docs/testing.md: `make test` runs it, `make test-fast` does not
def test_simulate_is_reproducible() -> None:
    """Same seed, same hands; another seed, other hands."""
    a = simulate(CLASSIC, players=5, hands=300, seed=11)
    b = simulate(CLASSIC, players=5, hands=300, seed=11)
    c = simulate(CLASSIC, players=5, hands=300, seed=12)
    assert a == b  # without a clock the summary is all results, so all of it repeats
    assert a["seconds"] is None and a["hands_per_second"] is None
    assert a["balances"] != c["balances"]
    assert a["conserved"] and c["conserved"]


def test_simulate_refuses_a_bot_of_another_game() -> None:
    with pytest.raises(ValueError, match="classic bot plays classic"):
        simulate(get_variant("svara32"), players=3, hands=1, bot="classic")


def test_classic_strength_orders_hands() -> None:
    """C-3: the bot's measure follows the scoring."""
    weak, mid, strong = ["7♠", "8♦", "9♣"], ["10♠", "J♠", "Q♦"], ["6♠", "6♥", "Jk"]
    assert 0 <= classic_strength(weak) < classic_strength(mid) < classic_strength(strong) <= 1


def play_table(bots: dict[str, Bot], hands: int, seed: int) -> tuple[dict[str, int], Counter]:
    """A classic session: what each seat won over the hands, and the events seen."""
    winnings = dict.fromkeys(bots, 0)
    kinds: Counter = Counter()
    for played in session(CLASSIC, bots, hands, seed, random.Random(seed)):
        for name, balance in played.hand.result().balances.items():
            winnings[name] += balance - played.start[name]
        kinds.update(e.kind for e in played.hand.events)
    return winnings, kinds


@pytest.mark.slow  # docs/testing.md: `make test` runs it, `make test-fast` does not
def test_classic_bot_beats_random_bots_and_uses_the_tools_of_the_game() -> None:
    """The classic bot weighs strength against pot odds: against two random bots it wins
    money, and along the way it looks, plays the dark and proposes deals."""
    rng = random.Random(3)
    bots: dict[str, Bot] = {
        "smart1": ClassicBot(rng),
        "rand1": RandomBot(rng),
        "smart2": ClassicBot(rng),
        "rand2": RandomBot(rng),
    }
    winnings, _ = play_table(bots, hands=500, seed=3)
    assert winnings["smart1"] + winnings["smart2"] > 0 > winnings["rand1"] + winnings["rand2"]
    only_smart: dict[str, Bot] = {f"s{i}": ClassicBot(rng) for i in range(4)}
    _, smart_kinds = play_table(only_smart, hands=400, seed=4)
    for kind in ("look", "dark", "propose", "lock", "svara"):
        assert smart_kinds[kind] > 0, kind


def test_svara_simulate_command() -> None:
    """docs/rules/hand-file.md: one JSON object with hands, seconds, hands_per_second, svaras,
    conserved."""
    runner = CliRunner()
    args = ["simulate", "--variant", "classic", "--players", "4", "--hands", "200", "--seed", "5"]
    out = runner.invoke(svara, args)
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert {"hands", "seconds", "hands_per_second", "svaras", "conserved"} <= set(doc)
    assert doc["hands"] == 200 and doc["conserved"] is True
    again = json.loads(runner.invoke(svara, args).output)
    assert again["balances"] == doc["balances"] and again["svaras"] == doc["svaras"]
    bad = runner.invoke(svara, ["simulate", "--variant", "nope", "--players", "4", "--hands", "1"])
    assert bad.exit_code == 2 and "unknown variant" in bad.output
