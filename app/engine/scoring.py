"""Scoring of three-card hands: what every game's scoring shares (C-3, S-2, B-2).

Each game writes its rules once, in its own module, as a direct evaluation (`rule`); its
`Scorer` builds a table over every three-card hand of its deck at import. Play then scores a
hand with one dict lookup keyed by the OR of its cards' bits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from itertools import combinations
from typing import NamedTuple

from .cards import Card, CardError

# C-3.1, S-2.1, B-2.1: the same face values in all three games.
VALUE: dict[str, int] = {
    "6": 6, "7": 7, "8": 8, "9": 9, "10": 10, "J": 10, "Q": 10, "K": 10, "A": 11, "Jk": 11,
}  # fmt: skip

ABSOLUTE_KEY = 10_000


class Score(NamedTuple):
    """What a hand is worth. `key` orders hands (higher is stronger; equal keys tie)."""

    points: float | None
    absolute: bool
    label: str | None
    key: int

    @classmethod
    def of(cls, points: float, label: str | None = None) -> Score:
        return cls(points, False, label, round(points * 2))


ABSOLUTE = Score(None, True, "абсолютный расклад", ABSOLUTE_KEY)


def suit_sums(cards: Iterable[Card]) -> dict[str, int]:
    sums: dict[str, int] = {}
    for c in cards:
        sums[c.suit] = sums.get(c.suit, 0) + VALUE[c.rank]
    return sums


def plain_best(cards: Sequence[Card]) -> int:
    """The best suit (C-3.2, S-2.2, B-2.2); a lone card is a suit of one, so the highest card
    counts when the suits differ (C-3.5)."""
    return max(suit_sums(cards).values())


def ranks_of(cards: Sequence[Card]) -> list[str]:
    return [c.rank for c in cards]


# --- tables -----------------------------------------------------------------------------


class Scorer:
    """One game's scoring: its deck, its direct rule and the table built from it."""

    def __init__(self, game: str, deck: tuple[Card, ...], rule: Callable[[Sequence[Card]], Score]):
        self.game = game
        self.deck = deck
        self.rule = rule
        self._in_deck = frozenset(deck)
        self.table: dict[int, Score] = {
            a.bit | b.bit | c.bit: rule((a, b, c)) for a, b, c in combinations(deck, 3)
        }

    @cached_property
    def keys(self) -> dict[int, int]:
        """The score key of every hand, by the OR of its cards' bits (what the bots sample)."""
        return {bits: score.key for bits, score in self.table.items()}

    def score(self, cards: Sequence[Card]) -> Score:
        """The score of a valid hand: one lookup."""
        a, b, c = cards
        return self.table[a.bit | b.bit | c.bit]

    def checked_score(self, cards: Sequence[Card]) -> Score:
        """The score of a hand from outside: three distinct cards of this game's deck."""
        self.check_hand(cards)
        return self.score(cards)

    def check_hand(self, cards: Sequence[Card]) -> None:
        if len(cards) != 3:
            raise CardError(f"a hand has exactly three cards, got {len(cards)}")
        if len(set(cards)) != 3:
            raise CardError("a hand cannot hold the same card twice")
        for c in cards:
            if c not in self._in_deck:
                raise CardError(f"{c} is not in the {self.game} deck")


def best_of(scores: Mapping[str, Score]) -> list[str]:
    """The players holding the best hand, in the mapping's order (several on a tie)."""
    top = max(s.key for s in scores.values())
    return [p for p, s in scores.items() if s.key == top]
