"""The simple policy: the random bot (any game); a game's own bots are in its module (the
classic bot, app/engine/classic.py), the odds bot is odds.py, the `Bot` base base.py."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..hand import Action, Legal
from .base import Bot, View, concrete


class RandomBot(Bot):
    """Uniform over the legal options, now and then letting the timer run out: the bot the
    property tests and the benchmark use, for any game."""

    uses_view = False

    def __init__(self, rng: random.Random, timeout_rate: float = 0.02):
        super().__init__(rng)
        self.timeout_rate = timeout_rate

    def choose(self, player: str, legal: Sequence[Legal], view: View | None) -> Action:
        if not legal or self.rng.random() < self.timeout_rate:
            return Action(player, "timeout")
        return concrete(player, self.rng.choice(legal), self.rng)

    def wants_dark(self) -> bool:
        return self.rng.random() < 0.5
