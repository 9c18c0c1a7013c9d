"""Cards, notation (docs/rules/hand-file.md) and the verifiable shuffle."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.cards import (
    JOKER,
    RANKS,
    CardError,
    Shuffle,
    card,
    commitment,
    make_deck,
    parse_card,
    parse_cards,
    verify_deal,
)
from app.engine.games import SCORERS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10♦", "10♦"),
        ("Td", "10♦"),
        ("td", "10♦"),
        ("As", "A♠"),
        ("aS", "A♠"),
        ("qh", "Q♥"),
        ("6C", "6♣"),
        ("Jk", "Jk"),
        ("JK", "Jk"),
        ("jk", "Jk"),
        (" K♠ ", "K♠"),
    ],
)
def test_notation_of_hand_files(text: str, expected: str) -> None:
    assert str(parse_card(text)) == expected


@pytest.mark.parametrize("text", ["", "A", "1♠", "11♦", "Ax", "Zs", "10", "♠A", "Jkk"])
def test_malformed_cards_are_refused(text: str) -> None:
    with pytest.raises(CardError):
        parse_card(text)


def test_a_repeated_card_is_refused() -> None:
    with pytest.raises(CardError, match="twice"):
        parse_cards(["As", "A♠", "Kd"])


def test_cards_are_canonical_immutable_values() -> None:
    assert parse_card("Td") is card("10", "♦")
    with pytest.raises(AttributeError):
        card("A", "♠").rank = "K"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("game", "size", "has_joker", "lowest"),
    [("classic", 37, True, "6"), ("shaha36", 36, False, "6"), ("svara32", 32, False, "7")],
)
def test_decks_per_game(game: str, size: int, has_joker: bool, lowest: str) -> None:
    """C-2.2 (37 with the joker), S-1.1 (36), B-1.1 (32, 7..A)."""
    deck = SCORERS[game].deck
    assert len(deck) == len(set(deck)) == size
    assert (JOKER in deck) is has_joker
    assert {c.rank for c in deck if not c.is_joker} == set(RANKS[RANKS.index(lowest) :])


def test_hand_tables_cover_every_three_card_hand() -> None:
    """Issue 2: 7770 / 7140 / 4960 hands."""
    assert [len(SCORERS[g].table) for g in ("classic", "shaha36", "svara32")] == [7770, 7140, 4960]


@given(st.text(min_size=1, max_size=20))
def test_the_same_seed_gives_the_same_deck(seed: str) -> None:
    deck = make_deck("6", joker=True)
    first, second = Shuffle.new(deck, seed), Shuffle.new(deck, seed)
    assert first.cards == second.cards
    assert sorted(first.cards) == sorted(deck)
    assert first.commit == commitment(seed)


def test_fresh_shuffles_differ_and_commit_before_revealing() -> None:
    deck = make_deck("7", joker=False)
    a, b = Shuffle.new(deck), Shuffle.new(deck)
    assert a.seed != b.seed and a.cards != b.cards
    assert a.seed not in a.commit and len(a.commit) == 64


def test_a_deal_verifies_against_its_seed_and_not_otherwise() -> None:
    deck = make_deck("6", joker=False)
    players = ["anna", "boris", "vera"]
    shuffle = Shuffle.new(deck)
    dealt = shuffle.deal(players)
    assert all(len(cards) == 3 for cards in dealt.values())
    # one card at a time round the table (B-1.3)
    assert dealt["anna"][0] == shuffle.cards[0] and dealt["boris"][0] == shuffle.cards[1]
    assert verify_deal(deck, players, dealt, shuffle.seed, shuffle.commit)
    other = Shuffle.new(deck)
    assert not verify_deal(deck, players, dealt, other.seed, shuffle.commit)
    swapped = {**dealt, "anna": dealt["boris"], "boris": dealt["anna"]}
    assert not verify_deal(deck, players, swapped, shuffle.seed, shuffle.commit)


def test_the_shuffle_is_not_biased_towards_keeping_order() -> None:
    """Across many seeds every card reaches the top: a shuffle that forgot to swap would fail."""
    deck = make_deck("7", joker=False)
    tops = {Shuffle.new(deck, str(i)).cards[0] for i in range(2000)}
    assert tops == set(deck)
