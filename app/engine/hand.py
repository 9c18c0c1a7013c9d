"""What every game's hand has in common: its inputs, its outputs and its errors.

A hand is an explicit state machine (after pokerkit's `State`): it is built from the seats,
the dealer and a source of deals, then fed `Action`s one at a time. Each operation checks
its preconditions and raises `RuleError` without touching the state; at every moment the
hand says whom it waits for (`awaiting`), what each of them may do (`legal`) and what each
viewer may see (`view`). Money moves only as `Transfer`s, which the server writes to the
ledger one for one. There are no clocks here: a timer running out is the `timeout` action.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from .cards import Card, Shuffle
from .variants import Variant

POT = "pot"
HOUSE = "house"
# Actions only the server declares, never offered by `legal()` nor accepted from a client:
# a timer ran out (`timeout`); a «Варить»/«Делить» proposer disconnected (`withdraw`, C-5.3).
DECLARED = frozenset({"timeout", "withdraw"})


class RuleError(Exception):
    """An action the rules do not allow now. The message says what was expected."""

    def __init__(self, message: str, player: str | None = None):
        super().__init__(message)
        self.message = message
        self.player = player


class Seat(NamedTuple):
    """A participant as the hand starts: name and the money he plays from (C-0.2, S-1.5)."""

    name: str
    balance: int


class Action(NamedTuple):
    """One input, exactly as a line of a hand file's `actions` (hand-file.md)."""

    player: str
    do: str
    to: int | None = None
    deal: str | None = None  # classic `propose`: "cook" | "split"

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "do": self.do}
        if self.to is not None:
            out["to"] = self.to
        if self.deal is not None:
            out["deal"] = self.deal
        return out


class Legal(NamedTuple):
    """An action a player may take now, with its price.

    A fixed amount has `to` set (and `min_to == max_to == to`); a range (a raise) has `to`
    None and the bounds in `min_to`/`max_to`. `price` is what the action costs the player
    now (for a range: at `min_to`).
    """

    do: str
    to: int | None = None
    price: int = 0
    min_to: int | None = None
    max_to: int | None = None
    deal: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in self._asdict().items() if v is not None}

    def allows(self, action: Action) -> bool:
        """Whether `action` is this legal action (a fixed `to`, or one inside the range)."""
        if action.do != self.do or action.deal != self.deal:
            return False
        if self.min_to is None or self.max_to is None:
            return action.to == self.to
        return action.to is not None and self.min_to <= action.to <= self.max_to


class Transfer(NamedTuple):
    """One movement of money: from a player to the pot, the pot to a player, the pot to the
    house. `kind` names why (ante, dark, bet, look, fee, award, split, return, rake)."""

    amount: int
    source: str
    target: str
    kind: str


@dataclass(frozen=True)
class Event:
    """Something that happened. `to` limits who may see it (None: everyone at the table)."""

    kind: str
    player: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    to: tuple[str, ...] | None = None

    def visible_to(self, viewer: str | None) -> bool:
        return self.to is None or (viewer is not None and viewer in self.to)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.player is not None:
            out["player"] = self.player
        out.update(self.data)
        return out


class Deal(NamedTuple):
    """The cards of one deal, with the shuffle commitment and seed when they are known."""

    cards: Mapping[str, tuple[Card, ...]]
    commit: str | None = None
    seed: str | None = None


DealSource = Callable[[Sequence[str]], Deal]
"""Called with the players to deal to, in dealing order; returns their cards."""


def shuffled_deals(deck: Sequence[Card]) -> DealSource:
    """Live play: a fresh secrets-grade shuffle for every deal, committed before it."""

    def source(players: Sequence[str]) -> Deal:
        shuffle = Shuffle.new(deck)
        return Deal(shuffle.deal(players), shuffle.commit, shuffle.seed)

    return source


class HandResult(NamedTuple):
    balances: dict[str, int]
    winners: list[str]
    rake: int
    svaras: int


class Hand(ABC):
    """The API every game's hand implements; servers, replay, bots and tests use only this."""

    game: ClassVar[str]

    def __init__(
        self,
        variant: Variant,
        seats: Sequence[Seat],
        dealer: str,
        deals: DealSource,
        dark: str | None = None,
    ):
        self.variant = variant
        self.seats = tuple(seats)
        self.dealer = dealer
        self.deal_source = deals
        self.dark_choice = dark
        self.events: list[Event] = []
        self.transfers: list[Transfer] = []
        self.deals: list[Deal] = []

    # --- what is happening --------------------------------------------------------------
    @property
    @abstractmethod
    def finished(self) -> bool: ...

    @abstractmethod
    def awaiting(self) -> tuple[str, ...]:
        """The players whose input the hand waits for (several during a vote or Svara entry)."""

    @abstractmethod
    def legal(self, player: str) -> list[Legal]:
        """What `player` may do now (empty when nothing)."""

    @abstractmethod
    def act(self, action: Action) -> list[Event]:
        """Apply one action; returns the events it caused. Raises RuleError, changing nothing."""

    @abstractmethod
    def view(self, viewer: str | None) -> dict[str, Any]:
        """Exactly what `viewer` (a player, or None for a spectator) may know now."""

    @abstractmethod
    def result(self) -> HandResult:
        """Balances after the hand, the winners of the final pot, rake and Svara count."""

    @property
    @abstractmethod
    def next_dealer(self) -> str | None:
        """Who deals the next ordinary hand (C-6.3), once the hand is finished."""

    def disconnect_action(self, player: str) -> Action | None:
        """What the server declares for `player` when his connection drops in this hand, if
        the rules make a disconnect act (C-5.3 cancels a vote); None: his timer runs on."""
        return None

    # --- how a table starts a hand of this game (simulate, practice tables) ----------
    @classmethod
    def stake(cls, variant: Variant) -> int:
        """What a simulated seat sits down with (and is topped up to when it runs short)."""
        return 100 * variant["ante"]

    @classmethod
    def playable(cls, variant: Variant, balance: int) -> bool:
        """Whether a seat with `balance` can take part in a hand (C-1.8: the ante at least)."""
        return balance >= variant["ante"]

    @classmethod
    def dark_candidate(cls, variant: Variant, seats: Sequence[Seat], dealer: str) -> str | None:
        """Who may choose the dark before the deal (the constructor's `dark`), if anyone."""
        return None

    # --- shared helpers -----------------------------------------------------------------
    def public_events(self, viewer: str | None = None) -> list[dict[str, Any]]:
        return [e.as_json() for e in self.events if e.visible_to(viewer)]

    def draw(self, players: Sequence[str]) -> Deal:
        """Take the next deal from the source and remember it for the hand file."""
        deal = self.deal_source(players)
        if set(deal.cards) != set(players):
            raise RuleError(
                f"deal {len(self.deals)} must be for {', '.join(players)}; "
                f"got {', '.join(deal.cards) or 'nobody'}"
            )
        self.deals.append(deal)
        return deal


HANDS: dict[str, type[Hand]] = {}


def register(cls: type[Hand]) -> type[Hand]:
    """Class decorator: make a game's hand known to replay, simulate and the server."""
    HANDS[cls.game] = cls
    return cls
