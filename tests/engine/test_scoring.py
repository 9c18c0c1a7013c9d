"""Scoring of the three games: every example of the rules files, and properties."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from app.engine.cards import RANKS, card, parse_cards
from app.engine.games import SCORERS
from app.engine.scoring import VALUE, Score, best_of


def points(game: str, text: str) -> float | None:
    return SCORERS[game].score(parse_cards(text.split())).points


CLASSIC = [  # docs/rules/classic.md §3 examples
    ("A♥ K♥ Q♥", 31), ("K♠ K♥ Q♦", 10), ("A♠ A♥ K♠", 22), ("7♠ 7♥ 7♦", 21),
    ("Jk 9♣ 9♦", 29), ("Jk 9♣ K♦", 21), ("Jk A♠ A♦", 33),
    ("K♠ K♥ K♦", 30), ("A♠ A♥ A♦", 33),  # C-3.3
]  # fmt: skip
SHAHA36 = [  # docs/rules/shaha36.md §2 examples
    ("K♠ 9♥ 7♦", 10, None), ("7♥ 9♠ 6♣", 20, None), ("A♥ K♥ 6♣", 32, None),
    ("A♥ K♥ Q♥", 31, "старшие трынки"), ("K♠ K♥ 6♣", 21, None), ("A♠ A♥ 6♣", 22, "два лба"),
    ("A♠ A♥ 9♦", 22, "два лба"), ("K♠ K♥ K♦", 32.5, None), ("7♠ 7♥ 7♦", 32.5, None),
    ("A♠ A♥ A♦", 33, "три лба"), ("6♠ 6♥ 6♣", 34, "три шахи"),
]  # fmt: skip
SVARA32 = [  # docs/rules/svara32.md §2 examples (seeds 003 and 004)
    ("7♥ 9♦ 9♣", 9), ("10♠ 10♦ 10♣", 30), ("8♣ K♥ 9♦", 10), ("K♥ 9♥ Q♣", 19),
    ("Q♣ Q♥ 9♦", 10), ("A♠ A♦ 10♣", 22), ("10♦ 9♦ J♦", 29), ("J♣ 10♠ 8♦", 10),
    ("7♥ 7♠ K♦", 23), ("7♦ 7♥ 7♠", 34), ("K♥ K♦ Q♠", 10), ("8♠ 8♥ 8♦", 24),
    ("Q♣ Q♥ Q♦", 30), ("A♠ A♥ A♦", 33), ("7♣ 8♣ 8♦", 27), ("7♣ K♥ K♦", 31),
    ("7♣ A♥ A♦", 33), ("7♣ 9♠ J♠", 30), ("8♠ A♦ 7♣", 22), ("Q♦ K♦ 10♠", 20),
    ("10♠ 8♠ K♥", 18),
]  # fmt: skip


@pytest.mark.parametrize(("hand", "expected"), CLASSIC)
def test_classic_examples(hand: str, expected: int) -> None:
    """C-3.1..C-3.6 and the examples of docs/rules/classic.md §3."""
    assert points("classic", hand) == expected


@pytest.mark.parametrize("hand", ["6♠ 6♥ 6♦", "6♣ 6♥ Jk", "6♠ 6♦ Jk"])
def test_classic_absolute_hand(hand: str) -> None:
    """C-3.7: three sixes or two sixes with the joker; stronger than any sum; two tie."""
    score = SCORERS["classic"].score(parse_cards(hand.split()))
    assert score.absolute and score.points is None
    strongest_sum = max(s.key for s in SCORERS["classic"].table.values() if not s.absolute)
    assert score.key > strongest_sum


@pytest.mark.parametrize(("hand", "expected", "label"), SHAHA36)
def test_shaha36_examples(hand: str, expected: float, label: str | None) -> None:
    """S-2.1..S-2.7 and the examples of docs/rules/shaha36.md §2."""
    score = SCORERS["shaha36"].score(parse_cards(hand.split()))
    assert (score.points, score.label) == (expected, label)


def test_shaha36_threes_of_a_rank_are_all_equal() -> None:
    """S-2.5: K K K against 7 7 7 is a Svara."""
    kings, sevens = (parse_cards(h.split()) for h in ("K♠ K♥ K♦", "7♠ 7♣ 7♦"))
    scores = {"a": SCORERS["shaha36"].score(kings), "b": SCORERS["shaha36"].score(sevens)}
    assert best_of(scores) == ["a", "b"]


@pytest.mark.parametrize(("hand", "expected"), SVARA32)
def test_svara32_examples(hand: str, expected: int) -> None:
    """B-2.1..B-2.6 and the examples of seeds 003 and 004."""
    assert points("svara32", hand) == expected


@pytest.mark.parametrize("game", list(SCORERS))
def test_the_table_agrees_with_the_rules_on_every_hand(game: str) -> None:
    """The lookup table is the direct rule evaluation, hand for hand, in any card order."""
    scorer = SCORERS[game]
    for a, b, c in combinations(scorer.deck, 3):
        assert scorer.score((c, a, b)) == scorer.rule((a, b, c))


TOP = {"classic": "6♠ 6♥ 6♦", "shaha36": "6♠ 6♥ 6♣", "svara32": "7♠ 7♥ 7♦"}


@pytest.mark.parametrize("game", list(SCORERS))
def test_the_top_hand_beats_or_ties_every_hand(game: str) -> None:
    """C-3.7, S-2.6 (34 is the top), B-2.4 (three sevens)."""
    top = SCORERS[game].score(parse_cards(TOP[game].split()))
    others = [s for s in SCORERS[game].table.values() if s != top]
    assert all(s.key < top.key for s in others)


def hands(game: str) -> st.SearchStrategy[tuple]:
    return st.lists(st.sampled_from(SCORERS[game].deck), min_size=3, max_size=3, unique=True).map(
        tuple
    )


@pytest.mark.slow  # docs/testing.md: `make test` runs it, `make test-fast` does not
@pytest.mark.parametrize("game", list(SCORERS))
@given(data=st.data())
def test_ties_are_symmetric_and_best_of_is_the_maximum(game: str, data: st.DataObject) -> None:
    scorer = SCORERS[game]
    dealt = data.draw(st.lists(hands(game), min_size=2, max_size=6))
    scores = {f"p{i}": scorer.score(h) for i, h in enumerate(dealt)}
    winners = best_of(scores)
    assert winners
    assert all(scores[w].key == max(s.key for s in scores.values()) for w in winners)
    reversed_scores = dict(reversed(scores.items()))
    assert sorted(best_of(reversed_scores)) == sorted(winners)


def _plain(game: str, hand: tuple) -> bool:
    """No joker, no pair or three of a rank: the hand scores by suits alone."""
    special = {"classic": None, "shaha36": card("6", "♣"), "svara32": card("7", "♣")}[game]
    return all(not c.is_joker and c != special for c in hand) and len({c.rank for c in hand}) == 3


@pytest.mark.slow  # docs/testing.md: `make test` runs it, `make test-fast` does not
@pytest.mark.parametrize("game", list(SCORERS))
@given(data=st.data())
def test_a_better_card_of_the_same_suit_never_lowers_the_points(
    game: str, data: st.DataObject
) -> None:
    """C-3.2/C-3.5, S-2.2, B-2.2: on a plain hand, a card swapped for a higher one of its own
    suit never lowers the points."""
    scorer = SCORERS[game]
    hand = data.draw(hands(game))
    assume(_plain(game, hand))
    i = data.draw(st.integers(0, 2))
    old = hand[i]
    higher = [r for r in RANKS[RANKS.index(old.rank) + 1 :] if VALUE[r] >= VALUE[old.rank]]
    assume(higher)
    new = card(data.draw(st.sampled_from(higher)), old.suit)
    swapped = tuple(new if j == i else c for j, c in enumerate(hand))
    assume(new not in hand and _plain(game, swapped))
    assert scorer.score(swapped).points >= scorer.score(hand).points


def test_scores_order_by_points() -> None:
    assert Score.of(32.5).key > Score.of(32).key > Score.of(31).key
