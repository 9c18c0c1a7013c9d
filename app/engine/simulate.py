"""`svara simulate`: bots play hands at one table of any registered game (docs/rules/hand-file.md).

The table is driven only through the `Hand` API and the class hooks of `hand.Hand`
(`stake`, `playable`, `dark_candidate`), so every game runs here unchanged. The bots draw
from `random.Random(seed)` and deal `i` of hand `h` is `Shuffle.new(deck, seed="S:h:i")`:
the same seed plays the same hands. The engine keeps no clock: a caller that wants the
speed passes one (`svara simulate` and the benchmark pass `time.perf_counter`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

from . import games
from .cards import Card, Shuffle
from .games import SCORERS
from .hand import Deal, DealSource, Hand, RuleError, Seat
from .policies.base import Bot
from .policies.roster import BOTS
from .variants import Variant

MAX_ACTIONS = 100_000  # per hand: a hand that long is an engine bug, not a game


def seeded_deals(deck: Sequence[Card], seed: str) -> DealSource:
    """Deal `i` of a hand from `Shuffle.new(deck, seed=f"{seed}:{i}")`: reproducible, and
    checkable against its commitment like a live deal."""
    count = 0

    def source(players: Sequence[str]) -> Deal:
        nonlocal count
        shuffle = Shuffle.new(deck, seed=f"{seed}:{count}")
        count += 1
        return Deal(shuffle.deal(players), shuffle.commit, shuffle.seed)

    return source


def play_hand(hand: Hand, bots: dict[str, Bot], rng: random.Random) -> int:
    """Let the bots play `hand` to its end; returns the number of actions. When several
    players are awaited at once (a vote, Svara entries) the order among them is drawn."""
    actions = 0
    while not hand.finished:
        waiting = hand.awaiting()
        player = waiting[0] if len(waiting) == 1 else rng.choice(waiting)
        bot = bots[player]
        legal = hand.legal(player)
        hand.act(bot.choose(player, legal, hand.view(player) if bot.uses_view else None))
        actions += 1
        if actions > MAX_ACTIONS:
            raise RuleError(f"the hand did not end after {MAX_ACTIONS} actions")
    return actions


class Played(NamedTuple):
    """One hand of a session: the hand, what each seat sat down to it with, and the top-ups
    granted just before it (so `result().balances[p] - start[p]` is the hand's result)."""

    hand: Hand
    start: dict[str, int]
    grants: dict[str, int]
    actions: int


def session(
    variant: Variant, bots: dict[str, Bot], hands: int, seed: int, rng: random.Random
) -> Iterator[Played]:
    """Play `hands` hands with `bots` in seat order; the dealer is drawn from `rng`, then
    follows the engine. A seat that can no longer take part is topped up to the game's
    stake between hands (the grant is reported)."""
    cls = games.hand_class(variant.game)
    names = list(bots)
    stake = cls.stake(variant)
    balances = dict.fromkeys(names, stake)
    deck = SCORERS[variant.game].deck
    dealer = rng.choice(names)
    for h in range(hands):
        grants: dict[str, int] = {}
        for name in names:
            if not cls.playable(variant, balances[name]):
                grants[name] = stake - balances[name]
                balances[name] = stake
        seats = [Seat(name, balances[name]) for name in names]
        candidate = cls.dark_candidate(variant, seats, dealer)
        dark = candidate if candidate is not None and bots[candidate].wants_dark() else None
        hand = cls(variant, seats, dealer, seeded_deals(deck, f"{seed}:{h}"), dark)
        actions = play_hand(hand, bots, rng)
        balances.update(hand.result().balances)
        yield Played(hand, {s.name: s.balance for s in seats}, grants, actions)
        dealer = hand.next_dealer or names[(names.index(dealer) + 1) % len(names)]


def simulate(
    variant: Variant,
    players: int,
    hands: int,
    seed: int = 0,
    bot: str = "random",
    clock: Callable[[], float] | None = None,
) -> dict[str, Any]:
    """Play `hands` hands; the summary of docs/rules/hand-file.md plus what the check needs
    (`seconds` and `hands_per_second` are null without a `clock`).

    A seat that can no longer take part is topped up to the game's stake between hands;
    those grants are counted, so `conserved` is: money before + grants = after + rake.
    """
    cls = games.hand_class(variant.game)
    kind = BOTS[bot]
    if kind.games is not None and variant.game not in kind.games:
        raise ValueError(f"the {bot} bot plays {', '.join(kind.games)}, not {variant.game}")
    if not 2 <= players <= variant["seats"]:
        raise ValueError(f"{variant.name} seats 2 to {variant['seats']} players")
    rng = random.Random(seed)
    names = [f"bot{i + 1}" for i in range(players)]
    bots: dict[str, Bot] = {name: kind.new(rng, games.GAMES) for name in names}
    balances = dict.fromkeys(names, cls.stake(variant))
    before = sum(balances.values())
    grants = rake = svaras = actions = 0
    started = clock() if clock else 0.0
    for played in session(variant, bots, hands, seed, rng):
        result = played.hand.result()
        balances.update(result.balances)
        grants += sum(played.grants.values())
        rake += result.rake
        svaras += result.svaras
        actions += played.actions
    seconds = clock() - started if clock else None
    return {
        "variant": variant.name,
        "players": players,
        "bot": bot,
        "seed": seed,
        "hands": hands,
        "actions": actions,
        "seconds": round(seconds, 3) if seconds is not None else None,
        "hands_per_second": round(hands / seconds, 1) if seconds else None,
        "svaras": svaras,
        "rake": rake,
        "grants": grants,
        "conserved": before + grants == sum(balances.values()) + rake,
        "balances": balances,
    }
