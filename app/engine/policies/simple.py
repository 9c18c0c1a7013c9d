"""The two simple policies: the random bot (any game) and the classic bot (a hand-strength
rule for `classic`); the odds bot is odds.py, the `Bot` base base.py."""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import cache

from ..cards import parse_cards
from ..games import SCORERS
from ..hand import Action, Legal
from .base import Bot, View, concrete
from .odds import to_of


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


@cache
def _classic_keys() -> list[int]:
    return sorted(SCORERS["classic"].keys.values())


def classic_strength(cards: Sequence[str]) -> float:
    """The share of all three-card hands that a hand beats (C-3): 0 weakest, ~1 absolute."""
    keys = _classic_keys()
    key = SCORERS["classic"].score(parse_cards(cards)).key
    return bisect_left(keys, key) / len(keys)


class ClassicBot(Bot):
    """A `classic` player: weighs its chance against the active opponents (its hand's
    strength to the power of their number) with the pot odds, looks with a fair hand,
    plays the dark sometimes and proposes a split or a cook with a middling hand."""

    games = ("classic",)

    def wants_dark(self) -> bool:
        return self.rng.random() < 0.25

    def choose(self, player: str, legal: Sequence[Legal], view: View | None) -> Action:
        assert view is not None
        options = {(o.do, o.to, o.deal): o for o in legal}
        me = next(p for p in view["players"] if p["name"] == player)
        rivals = sum(1 for p in view["players"] if p["state"] == "active") - 1
        chance = classic_strength(me["cards"]) ** max(rivals, 1) if me["cards"] else None

        def pick(*keys: tuple[str, int | None, str | None]) -> Action | None:
            for key in keys:
                if key in options:
                    return concrete(player, options[key], self.rng)
            return None

        if view["phase"] == "svara_entry":
            free = len(view["svara"]["free"])
            fee = view["svara"]["fee"]
            worth = fee / (view["pot"] + fee) < 1 / (free + 1)
            return pick(("join", None, None) if worth else ("skip", None, None)) or Action(
                player, "skip"
            )
        if view["phase"] == "dark_decision":
            on = self.rng.random() < 0.5
            return pick(("dark_on" if on else "dark_off", None, None)) or Action(player, "dark_off")
        if "agree" in {o.do for o in legal}:
            yes = chance is None or chance < 0.55
            return pick(("agree" if yes else "refuse", None, None)) or Action(player, "refuse")
        return self._betting(player, legal, view, chance, pick)

    def _betting(
        self,
        player: str,
        legal: Sequence[Legal],
        view: View,
        chance: float | None,
        pick: Callable[..., Action | None],
    ) -> Action:
        rng = self.rng
        level = view["level"]
        fold = Action(player, "fold")
        if chance is None:  # the dark player before his first decision (C-2.5, C-4.17)
            if rng.random() < 0.5:
                return pick(("look", None, None), ("bet", level, None)) or fold
            return pick(("bet", level, None)) or fold
        raises = sorted((o for o in legal if o.do in ("bet", "give_on") and o.to), key=to_of)
        if level is None:  # no bet open: bet a good hand, else pass or open
            bets = [o for o in raises if o.do == "bet"]
            if bets and chance > 0.55:
                return concrete(player, bets[-1] if chance > 0.8 else bets[0], rng)
            return pick(("pass", None, None), ("open", None, None)) or fold
        price = level
        odds = price / (view["pot"] + price)
        if chance < odds * 0.8:
            looks = chance > 0.3 and rng.random() < 0.3
            return (pick(("look", None, None)) or fold) if looks else fold
        active = sum(1 for p in view["players"] if p["state"] == "active")
        if 0.3 < chance < 0.6 and active <= 3 and rng.random() < 0.3:
            deal = pick(("propose", None, "split"), ("propose", None, "cook"))
            if deal is not None:
                return deal
        if chance > 0.45 and rng.random() < 0.5:
            look = pick(("look", None, None))
            if look is not None:
                return look
        if chance > 0.6:
            locked = pick(("lock", None, None))
            if locked is not None:
                return locked
        higher = [o for o in raises if o.to is not None and o.to > level]
        if higher and chance > 0.8:
            return concrete(player, higher[0], rng)
        return pick(("bet", level, None), ("give_on", None, None), ("lock", None, None)) or fold
