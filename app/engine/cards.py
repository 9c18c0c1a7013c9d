"""Cards, decks and the verifiable shuffle.

A card is an immutable value; every card of the game exists once as a canonical instance
(`card("A", "♥")`), so a hand can be keyed by the OR of its cards' bits and scored with one
table lookup (see `scoring`).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

RANKS: tuple[str, ...] = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("♠", "♣", "♥", "♦")
JOKER_RANK = "Jk"

_SUIT_ALIASES = {"s": "♠", "c": "♣", "h": "♥", "d": "♦", "♠": "♠", "♣": "♣", "♥": "♥", "♦": "♦"}
# Text-style and emoji variants some keyboards produce.
_SUIT_ALIASES.update({"♤": "♠", "♧": "♣", "♡": "♥", "♢": "♦"})
_RANK_ALIASES = {r.lower(): r for r in RANKS} | {"t": "10"}


class CardError(ValueError):
    """A card that cannot be read, or that does not belong where it is used."""


class Card(NamedTuple):
    """One playing card. `suit` is empty for the joker; `bit` identifies it in a hand key."""

    rank: str
    suit: str
    bit: int

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card({self})"

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK


def _make_all() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    for i, (rank, suit) in enumerate((r, s) for r in RANKS for s in SUITS):
        cards[rank + suit] = Card(rank, suit, 1 << i)
    cards[JOKER_RANK] = Card(JOKER_RANK, "", 1 << len(cards))
    return cards


_ALL: dict[str, Card] = _make_all()
JOKER: Card = _ALL[JOKER_RANK]


def card(rank: str, suit: str = "") -> Card:
    """The canonical card of a rank and suit (`card("Jk")` is the joker)."""
    try:
        return _ALL[rank + suit]
    except KeyError:
        raise CardError(f"no such card: {rank}{suit}") from None


def parse_card(text: str) -> Card:
    """Read one card in the notation of docs/rules/hand-file.md: `10♦`, `Td`, `as`, `Jk`
    (any case)."""
    t = text.strip()
    if t.lower() == "jk":
        return JOKER
    if len(t) < 2:
        raise CardError(f"malformed card {text!r}: expected rank and suit, e.g. 10♦ or Td")
    suit = _SUIT_ALIASES.get(t[-1].lower())
    rank = _RANK_ALIASES.get(t[:-1].lower())
    if suit is None:
        raise CardError(f"malformed card {text!r}: unknown suit {t[-1]!r} (use ♠ ♣ ♥ ♦ or s c h d)")
    if rank is None:
        raise CardError(
            f"malformed card {text!r}: unknown rank {t[:-1]!r} (use 6 7 8 9 10 J Q K A, T for 10)"
        )
    return _ALL[rank + suit]


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Read several cards; a repeated card is an error."""
    cards = tuple(parse_card(t) for t in texts)
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise CardError(f"card {c} appears twice")
        seen.add(c)
    return cards


def make_deck(lowest_rank: str, joker: bool) -> tuple[Card, ...]:
    """All cards from `lowest_rank` up to the ace in four suits, plus the joker if asked."""
    ranks = RANKS[RANKS.index(lowest_rank) :]
    deck = tuple(_ALL[r + s] for r in ranks for s in SUITS)
    return (*deck, JOKER) if joker else deck


# --- The verifiable shuffle -------------------------------------------------------------

_SHUFFLE_DOMAIN = b"svara-shuffle/1:"


def commitment(seed: str) -> str:
    """The published hash of a seed: fixed before the deal, checkable after it."""
    return hashlib.sha256(_SHUFFLE_DOMAIN + seed.encode()).hexdigest()


def _stream(seed: str) -> Iterable[int]:
    """An endless stream of 32-bit words derived from the seed (SHA-256 in counter mode)."""
    counter = 0
    while True:
        block = hashlib.sha256(_SHUFFLE_DOMAIN + seed.encode() + counter.to_bytes(8, "big"))
        digest = block.digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i : i + 4], "big")
        counter += 1


def shuffled(deck: Sequence[Card], seed: str) -> list[Card]:
    """The deck in the order the seed fixes (Fisher-Yates with unbiased rejection sampling).

    The derivation is specified here rather than borrowed from `random`, so that anyone can
    re-check a deal from its seed with any SHA-256 implementation.
    """
    return fisher_yates(deck, _stream(seed))


def fisher_yates(deck: Sequence[Card], stream: Iterable[int]) -> list[Card]:
    """The deck shuffled by 32-bit words: from the last position down, position i swaps with
    `w mod (i + 1)` for the first word w below the largest multiple of i + 1 (no bias);
    docs/fairness.md states it for reimplementation."""
    cards = list(deck)
    words = iter(stream)
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        limit = (1 << 32) - (1 << 32) % bound
        while (w := next(words)) >= limit:
            pass
        j = w % bound
        cards[i], cards[j] = cards[j], cards[i]
    return cards


class Shuffle(NamedTuple):
    """A shuffled deck with its seed and the commitment to it."""

    seed: str
    commit: str
    cards: tuple[Card, ...]

    @classmethod
    def new(cls, deck: Sequence[Card], seed: str | None = None) -> Shuffle:
        """Shuffle with a fresh secrets-grade seed (or a given one, for tests and replays)."""
        seed = seed if seed is not None else secrets.token_hex(32)
        return cls(seed, commitment(seed), tuple(shuffled(deck, seed)))

    def deal(self, players: Sequence[str], count: int = 3) -> dict[str, tuple[Card, ...]]:
        """Cards one at a time round the `players` (already in dealing order)."""
        return deal_round(self.cards, players, count)


def deal_round(
    cards: Sequence[Card], players: Sequence[str], count: int = 3
) -> dict[str, tuple[Card, ...]]:
    """Cards from the top of `cards` one at a time round the `players` (B-1.3)."""
    n = len(players)
    if n * count > len(cards):
        raise CardError(f"a deck of {len(cards)} cannot deal {count} to {n} players")
    return {p: tuple(cards[i + k * n] for k in range(count)) for i, p in enumerate(players)}


def verify_deal(
    deck: Sequence[Card],
    players: Sequence[str],
    dealt: Mapping[str, Sequence[Card]],
    seed: str,
    commit: str,
) -> bool:
    """True when the seed opens the commitment and reproduces exactly the dealt cards."""
    if commitment(seed) != commit:
        return False
    expected = Shuffle.new(deck, seed).deal(players)
    return all(tuple(dealt.get(p, ())) == cards for p, cards in expected.items())
