"""What a bot is: a policy that plays a seat through the `Hand` API only (`legal`, `view`).

A bot sees exactly what a human in its seat would see: the view of its own seat. Every bot
draws its randomness from the `random.Random` it is given, so a seeded table plays the same
hands again. The policies themselves are simple.py and odds.py.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..hand import Action, Legal

View = Mapping[str, Any]


def concrete(player: str, option: Legal, rng: random.Random) -> Action:
    """The action of a legal option, with a `to` picked inside its range when it has one."""
    to = option.to
    if option.min_to is not None and option.max_to is not None:
        to = rng.randint(option.min_to, option.max_to)
    return Action(player, option.do, to, option.deal)


class Bot(ABC):
    """A seat's policy. `uses_view` says whether `choose` needs the seat's view (building
    it costs time, and a random bot does without)."""

    games: ClassVar[tuple[str, ...] | None] = None  # None: any game
    uses_view: ClassVar[bool] = True

    def __init__(self, rng: random.Random):
        self.rng = rng

    @classmethod
    def new(cls, rng: random.Random, records: Mapping[str, Any]) -> Bot:
        """A bot for the games of `records` (the registry's `GAMES`, given by the roster's
        users: a policy that plays each game its own way reads them; this one does not)."""
        return cls(rng)

    @abstractmethod
    def choose(self, player: str, legal: Sequence[Legal], view: View | None) -> Action:
        """One action among `legal` (or a timeout) for `player`."""

    def wants_dark(self) -> bool:
        """Whether to choose the dark before the deal when the seat is the candidate."""
        return False
