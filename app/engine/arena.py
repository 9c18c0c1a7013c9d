"""Bot against bot: one bot's result per hand at a simulated table (benchmarks/bench_bots.py).

The table is `simulate.session`: seeded deals, the dealer as the engine moves it, seats
topped up between hands. Seat 0 plays the bot under test and the others the opponent bot,
so a hand's result is seat 0's balance after it minus before it, in antes.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from typing import NamedTuple

from .games import GAMES
from .policies.roster import BOTS
from .simulate import session
from .variants import Variant

Z95 = 1.96


class Match(NamedTuple):
    """Seat 0's results, one per hand, in antes."""

    results: list[float]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.results)

    @property
    def half_width(self) -> float:
        """The 95 % confidence half-width of the mean (normal approximation)."""
        return Z95 * statistics.stdev(self.results) / math.sqrt(len(self.results))


def match(variant: Variant, bot: str, opponent: str, players: int, hands: int, seed: int) -> Match:
    """`bot` in seat 0 against `players - 1` copies of `opponent`, for `hands` hands."""
    if not 2 <= players <= variant["seats"]:
        raise ValueError(f"{variant.name} seats 2 to {variant['seats']} players")
    rng = random.Random(seed)
    lineup = [bot] + [opponent] * (players - 1)
    bots = {f"{kind}{i + 1}": BOTS[kind].new(rng, GAMES) for i, kind in enumerate(lineup)}
    me, ante = next(iter(bots)), variant["ante"]
    return Match(
        [
            (played.hand.result().balances[me] - played.start[me]) / ante
            for played in session(variant, bots, hands, seed, rng)
        ]
    )


def lineups(game: str) -> Sequence[str]:
    """The opponents the odds bot is measured against in a game: random everywhere, and
    each other bot written for that game."""
    return [name for name, kind in BOTS.items() if name != "odds" and kind.games in (None, (game,))]
