"""What every game's hand has in common: its inputs, its outputs and its errors.

A hand is an explicit state machine (after pokerkit's `State`): it is built from the seats,
the dealer and a source of deals, then fed `Action`s one at a time. At every moment the hand
says whom it waits for (`awaiting`), what each of them may do (`legal`), where it stands
(`phase`) and what each viewer may see (`view`). Money moves only as `Transfer`s, which the
server writes to the ledger one for one. There are no clocks here: a timer running out is the
`timeout` action.

One contract for every game (`Hand.act`): an action is checked once, the same way in every
game, against what `legal()` offers (`Hand.check`, raising `RuleError` that says what was
expected; the game only adds the rule behind a refusal, `_why_not`), and the game's effect
(`_apply`) then runs inside one transaction. Once checked, the only step that can still fail
is drawing a deal (a hand file short of deals, docs/rules/hand-file.md); the transaction then
restores the hand as it was before the action, so a refused action never changes anything.
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
TIMEOUT = frozenset({"timeout"})


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
    """One input, exactly as a line of a hand file's `actions` (docs/rules/hand-file.md)."""

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
    """An action a player may take now, with its price. Three shapes, built alike by every
    game: no amount (`Legal("fold")`, `Legal("join", price=fee)`), a fixed amount
    (`Legal.fixed`: `to` set) and a range (`Legal.range`: `to` None, the bounds in
    `min_to`/`max_to`). `price` is what the action costs the player now (for a range: at
    `min_to`).
    """

    do: str
    to: int | None = None
    price: int = 0
    min_to: int | None = None
    max_to: int | None = None
    deal: str | None = None

    @classmethod
    def fixed(cls, do: str, to: int, price: int, deal: str | None = None) -> Legal:
        """An action to exactly `to` (a classic level, a call, a doubled dark)."""
        return cls(do, to, price, None, None, deal)

    @classmethod
    def range(cls, do: str, low: int, high: int, price: int, default: int | None = None) -> Legal:
        """A bet or raise to any amount from `low` to `high`; `price` is the cost at `low`.
        `default`: the amount an action that names none means (else it must name one)."""
        return cls(do, default, price, low, high)

    @property
    def ranged(self) -> bool:
        return self.min_to is not None

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in self._asdict().items() if v is not None}

    def allows(self, action: Action) -> bool:
        """Whether `action` is this legal action: no amount; a fixed `to`, which it may leave
        out; one inside the range, or none where the range has a default."""
        if action.do != self.do or action.deal != self.deal:
            return False
        if self.min_to is None or self.max_to is None:
            return action.to == self.to or (action.to is None and self.to is not None)
        if action.to is None:
            return self.to is not None
        return self.min_to <= action.to <= self.max_to

    def amiss(self, action: Action) -> str:
        """Why `action`, of this option's name, is not this option (its deal or amount)."""
        do, to = action.do, action.to
        if action.deal != self.deal:
            return f"{do} carries no deal" if self.deal is None else f"{do} is {self.deal}"
        if self.min_to is not None:
            if to is None:
                return f"{do} needs `to` between {self.min_to} and {self.max_to}"
            return f"{do} to must be between {self.min_to} and {self.max_to}, not {to}"
        if self.to is None:
            return f"{do} takes no amount"
        return f"{do} is to {self.to} here, not {to}"


def describe(item: Action | Legal) -> str:
    """An action as a player would name it in an error message: `bet 20`, `raise 10..90`,
    `propose split`."""
    words = [item.do]
    if isinstance(item, Legal) and item.ranged:
        words.append(f"{item.min_to}..{item.max_to}")
    elif item.to is not None:
        words.append(str(item.to))
    if item.deal is not None:
        words.append(item.deal)
    return " ".join(words)


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


class PlayerSeed(NamedTuple):
    """A participant's contribution to the shuffle (docs/fairness.md): sent by his page
    (`kind` "person"), or `drawn` from the server's seed for a "bot" or a page that sent
    none ("silent"); `kind` None in files written before the kinds were recorded."""

    name: str
    seed: str
    drawn: bool = False
    kind: str | None = None


class Deal(NamedTuple):
    """The cards of one deal, with the shuffle commitment and seed when they are known, and
    the participants' seeds the deck was derived from (None: the older single-seed shuffle)."""

    cards: Mapping[str, tuple[Card, ...]]
    commit: str | None = None
    seed: str | None = None
    seeds: tuple[PlayerSeed, ...] | None = None


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
    actions: ClassVar[tuple[str, ...]]
    """Every action the game knows, the declared ones it takes included."""
    phase: str
    """Where the hand stands (`betting` … `finished`): the game's own names, also the view's
    `phase`; a table keys its timers on it (docs/protocol.md)."""

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
        # The actions accepted so far: with the deals, what rebuilds the hand (`_restore`).
        self.history: list[Action] = []
        # What `public_events` keeps: each event's JSON, and each viewer's list of them.
        self._made: list[dict[str, Any]] = []
        self._shown: dict[str | None, tuple[int, list[dict[str, Any]]]] = {}

    # --- what is happening --------------------------------------------------------------
    @property
    @abstractmethod
    def finished(self) -> bool: ...

    @abstractmethod
    def awaiting(self) -> tuple[str, ...]:
        """The players whose input the hand waits for (several during a vote or Svara entry)."""

    def timer_owners(self) -> tuple[str, ...]:
        """The players whose own timer runs now (C-1.7: a timeout is theirs, and they are the
        ones who let it run out): those awaited, unless the awaited decide in another's time
        (C-5.3: a vote runs in the rest of the proposer's turn)."""
        return self.awaiting()

    @abstractmethod
    def legal(self, player: str) -> list[Legal]:
        """What `player` may do now (empty when nothing)."""

    def act(self, action: Action) -> list[Event]:
        """Apply one action; returns the events it caused. Raises RuleError, changing nothing."""
        taken = self.check(action)
        start = len(self.events)
        try:
            self._apply(taken)
        except Exception:
            self._restore()
            raise
        self.history.append(action)
        return self.events[start:]

    def check(self, action: Action) -> Action:
        """`action` as the rules take it (an amount it left out filled in from the option),
        or RuleError saying what was expected: the one check of every game, against
        `legal()` (and `declarable` for what only the server declares). Changes nothing."""
        p, do = action.player, action.do
        if do not in DECLARED:  # the common case first: an option offered now
            for option in self.legal(p):
                if option.allows(action):
                    if action.to is not None or option.to is None:
                        return action
                    return action._replace(to=option.to)
        if do not in self.actions:
            known = ", ".join(self.actions)
            raise RuleError(f"unknown action {do!r} in {self.game}; known: {known}", p)
        if self.finished:
            raise RuleError("the hand is already over", p)
        if all(seat.name != p for seat in self.seats):
            raise RuleError(f"{p!r} is not at this table", p)
        if do not in DECLARED:
            raise RuleError(self._refusal(action, self.legal(p)), p)
        if action.to is not None or action.deal is not None:
            raise RuleError(f"a {do} carries no amount and no deal", p)
        if do not in self.declarable(p):
            raise RuleError(self._refusal(action, self.legal(p)), p)
        return action

    def declarable(self, player: str) -> frozenset[str]:
        """What the server may declare for `player` now: the timeout of whoever's timer runs
        or whom the hand awaits (C-4.12, S-3.4, B-1.5)."""
        if player in self.awaiting() or player in self.timer_owners():
            return TIMEOUT
        return frozenset()

    def _refusal(self, action: Action, options: Sequence[Legal]) -> str:
        """The words of a refusal: whose turn it is, or what may be done instead, with the
        amount that was wrong and the rule behind it (`_why_not`)."""
        p, do = action.player, action.do
        named = [o for o in options if o.do == do]
        amiss = named[0].amiss(action) if len(named) == 1 else None
        said = ": ".join(x for x in (amiss, self._why_not(action)) if x)
        if not named and p not in self.awaiting() and p not in self.timer_owners():
            names = ", ".join(self.awaiting()) or "nobody"
            turn = f"it is not {p}'s turn: waiting for {names} ({self.phase})"
            return f"{turn}; {said}" if said else turn
        legal = ", ".join(describe(o) for o in options) or "nothing"
        return f"{p} may not {describe(action)} now{f' ({said})' if said else ''}; legal: {legal}"

    def _why_not(self, action: Action) -> str | None:
        """The game's rule behind refusing `action` (its rule id), where it can say one."""
        return None

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """The effect of an action `check` took (its amount filled in): the game's state
        machine moves on."""

    def _restore(self) -> None:
        """Undo an effect that failed part-way (its deal could not be drawn): the hand is a
        function of its seats, deals and accepted actions (docs/rules/hand-file.md), so it is
        rebuilt from the deals drawn before and `history`, and takes the rebuilt state. The logs
        stay the same lists, cut back to what they held (callers may hold them)."""
        stored = iter(list(self.deals))  # the rebuild asks only for those drawn before
        fresh = type(self)(
            self.variant, self.seats, self.dealer, lambda _players: next(stored), self.dark_choice
        )
        for action in self.history:
            fresh.act(action)
        logs: dict[str, list[Any]] = {
            "events": self.events,
            "transfers": self.transfers,
            "deals": self.deals,
        }
        for name, log in logs.items():
            log[:] = getattr(fresh, name)
        vars(self).update({**vars(fresh), **logs, "deal_source": self.deal_source})

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
        """The events `viewer` may see, as JSON, in a list of his own. A table makes every
        viewer's view at every change of the hand (docs/performance.md), so each event's
        JSON is made once for all viewers (`_made`) and each viewer's list is kept and only
        grows by the new events. Events are only appended (a refused action's `_restore`
        leaves them as they were), so what is kept stays true; it goes with the hand."""
        count, shown = self._shown.get(viewer, (0, []))
        events, made = self.events, self._made
        if count < len(events):
            made.extend(e.as_json() for e in events[len(made) :])
            shown.extend(made[i] for i in range(count, len(events)) if events[i].visible_to(viewer))
            self._shown[viewer] = (len(events), shown)
        return list(shown)

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
