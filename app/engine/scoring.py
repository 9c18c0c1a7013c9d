"""Scoring of three-card hands for the three games: classic (C-3), shaha36 (S-2), svara32 (B-2).

Each game's rules are written once as a direct evaluation (`rule`), which builds a table over
every three-card hand of its deck at import. Play then scores a hand with one dict lookup
keyed by the OR of its cards' bits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations
from typing import NamedTuple

from .cards import Card, CardError, card, make_deck

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


def _suit_sums(cards: Iterable[Card]) -> dict[str, int]:
    sums: dict[str, int] = {}
    for c in cards:
        sums[c.suit] = sums.get(c.suit, 0) + VALUE[c.rank]
    return sums


def _plain_best(cards: Sequence[Card]) -> int:
    """The best suit (C-3.2, S-2.2, B-2.2); a lone card is a suit of one, so the highest card
    counts when the suits differ (C-3.5)."""
    return max(_suit_sums(cards).values())


def _ranks(cards: Sequence[Card]) -> list[str]:
    return [c.rank for c in cards]


# --- classic (C-3) ----------------------------------------------------------------------


def classic_rule(cards: Sequence[Card]) -> Score:
    """C-3.1..C-3.8 evaluated directly."""
    jokers = [c for c in cards if c.is_joker]
    others = [c for c in cards if not c.is_joker]
    ranks = _ranks(others)
    if ranks.count("6") == 3 or (jokers and ranks.count("6") == 2):
        return ABSOLUTE  # C-3.7
    if jokers:  # C-3.6
        a, b = others
        if a.suit == b.suit or a.rank == b.rank:
            return Score.of(11 + VALUE[a.rank] + VALUE[b.rank])
        return Score.of(11 + max(VALUE[a.rank], VALUE[b.rank]))
    best = _plain_best(others)  # C-3.2, C-3.5
    if len(set(ranks)) == 1:
        best = max(best, 3 * VALUE[ranks[0]])  # C-3.3
    if ranks.count("A") == 2:
        best = max(best, 22)  # C-3.4
    return Score.of(best)


# --- shaha36 (S-2) ----------------------------------------------------------------------

SHAHA = card("6", "♣")


def shaha36_rule(cards: Sequence[Card]) -> Score:
    """S-2.1..S-2.7 evaluated directly, with the names shown at showdown (S-2.7)."""
    ranks = _ranks(cards)
    if ranks.count("6") == 3:
        return Score.of(34, "три шахи")  # S-2.6: the 6♣ is a plain six here
    if ranks.count("A") == 3:
        return Score.of(33, "три лба")
    if len(set(ranks)) == 1:
        return Score.of(32.5)  # S-2.5
    best = _plain_best(cards)
    if SHAHA in cards:  # S-2.3: +11 to the best suit of the other two, never a pair to three
        best = max(best, 11 + _plain_best([c for c in cards if c != SHAHA]))
    if ranks.count("A") == 2 and best <= 22:
        return Score.of(22, "два лба")  # S-2.4
    suits = {c.suit for c in cards}
    if best == 31 and len(suits) == 1 and SHAHA not in cards:
        return Score.of(31, "старшие трынки")
    return Score.of(best)


# --- svara32 (B-2) ----------------------------------------------------------------------

SVARA32_JOKER = card("7", "♣")


def svara32_rule(cards: Sequence[Card]) -> Score:
    """B-2.1..B-2.6 evaluated directly."""
    ranks = _ranks(cards)
    if ranks.count("7") == 3:
        return Score.of(34)  # B-2.4: the top hand
    if len(set(ranks)) == 1:
        return Score.of(3 * VALUE[ranks[0]])  # B-2.3
    best = _plain_best(cards)
    if ranks.count("A") == 2:
        best = max(best, 22)  # B-2.4
    if ranks.count("7") == 2:
        best = max(best, 23)  # B-2.4, whatever the suits (the 7♣ included)
    if SVARA32_JOKER in cards:  # B-2.5: 11, joining a pair's rank or the best suit
        a, b = (c for c in cards if c != SVARA32_JOKER)
        if a.rank == b.rank or a.suit == b.suit:
            best = max(best, 11 + VALUE[a.rank] + VALUE[b.rank])
        else:
            best = max(best, 11 + max(VALUE[a.rank], VALUE[b.rank]))
    return Score.of(best)


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


SCORERS: dict[str, Scorer] = {
    "classic": Scorer("classic", make_deck("6", joker=True), classic_rule),
    "shaha36": Scorer("shaha36", make_deck("6", joker=False), shaha36_rule),
    "svara32": Scorer("svara32", make_deck("7", joker=False), svara32_rule),
}


def best_of(scores: Mapping[str, Score]) -> list[str]:
    """The players holding the best hand, in the mapping's order (several on a tie)."""
    top = max(s.key for s in scores.values())
    return [p for p, s in scores.items() if s.key == top]
