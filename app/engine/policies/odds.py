"""The odds bot: every game played from its chance of holding the best hand.

It reads only its seat's view — its own cards as far as it has seen them, the cards shown
or seen in looks, who is still in, the pot — and its legal actions. The deck minus the
cards it sees are the unseen cards; with the game's score table (keyed by the OR of card
bits) it computes its *equity*, the share of the pot it can expect at a showdown (a tie is
a Svara, worth a share): exactly against one unknown hand (every three unseen cards), by
seeded sampling against several. It bets and raises a strong hand, calls when
equity × the pot after the call covers the price, bluffs rarely, and uses each game's
specials: the look (classic duel, shaha36 turning, svara32 seeing one's dark hand), the
dark, the split/cook deals and votes, and the Svara entry at its fair price.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple, Protocol

from ..cards import Card, parse_cards
from ..hand import Action, Legal
from ..scoring import Scorer
from .base import Bot, View, concrete

SAMPLES = 300  # deals sampled against two or more unknown hands
CACHE = 64  # equities remembered (a hand asks about the same cards several times)
LIVE = frozenset({"active", "playing", "shown"})  # states of a player still in the deal
BLUFF = 0.05  # how often a weak hand bets when it costs nothing to check
DARK = 0.15  # how often the bot chooses the dark before the deal
RAISE, BIG_RAISE = 0.75, 0.9  # per-rival win chance for a raise and for a pot-sized one
LOOK = 0.55  # classic: the duel's win chance (ties included) worth a look
DRAG = 1.5  # classic: an answer is paid in full each circle (C-4.3), so a call costs more


class Reading(NamedTuple):
    """What a seat knows of the current deal, from its view alone."""

    mine: tuple[Card, ...]  # its own cards as seen so far (0..3)
    dead: tuple[Card, ...]  # other cards it has seen, in no unknown hand
    known: tuple[int, ...]  # score keys of rivals still in whose cards it sees
    unknown: int  # rivals still in whose cards it does not see


def read(view: View, player: str, scorer: Scorer) -> Reading:
    """The seat's knowledge: its cards, the cards it sees, its live rivals (any game:
    `scorer` is its game's)."""
    mine: tuple[Card, ...] = ()
    dead: list[Card] = []
    known: list[int] = []
    unknown = 0
    keys = scorer.keys
    for seat in view["players"]:
        cards = parse_cards(seat["cards"]) if seat["cards"] else ()
        if seat["name"] == player:
            mine = cards
        elif seat["state"] in LIVE and len(cards) == 3:
            known.append(keys[_bits(cards)])
            dead += cards
        elif seat["state"] in LIVE:
            unknown += 1
        else:
            dead += cards
    return Reading(mine, tuple(dead), tuple(sorted(known)), unknown)


def _bits(cards: Iterable[Card]) -> int:
    out = 0
    for c in cards:
        out |= c.bit
    return out


def _unseen(scorer: Scorer, seen: Iterable[Card]) -> list[int]:
    gone = _bits(seen)
    return [c.bit for c in scorer.deck if not c.bit & gone]


@lru_cache(maxsize=256)
def against_one(
    scorer: Scorer, mine: tuple[Card, ...], dead: tuple[Card, ...]
) -> tuple[float, float]:
    """Exactly: the chance that one unknown hand of `scorer`'s game scores below `mine`,
    and that it ties."""
    keys = scorer.keys
    my = keys[_bits(mine)]
    below = equal = total = 0
    for a, b, c in combinations(_unseen(scorer, (*mine, *dead)), 3):
        key = keys[a | b | c]
        total += 1
        if key < my:
            below += 1
        elif key == my:
            equal += 1
    return below / total, equal / total


def sampled_equity(scorer: Scorer, reading: Reading, rng: random.Random, samples: int) -> float:
    """The expected pot share over `samples` deals of the unseen cards to the seat's missing
    cards and to every unknown rival (a tie for best shares the pot: the Svara)."""
    keys = scorer.keys
    pool = _unseen(scorer, (*reading.mine, *reading.dead))
    missing = 3 - len(reading.mine)
    need, n = missing + 3 * reading.unknown, len(pool)
    own = _bits(reading.mine)
    top_known = max(reading.known, default=-1)
    known_ties = reading.known.count(top_known)
    uniform = rng.random
    total = 0.0
    for _ in range(samples):
        for i in range(need):  # a partial Fisher-Yates: the first `need` cards are the deal
            j = i + int(uniform() * (n - i))
            pool[i], pool[j] = pool[j], pool[i]
        my = own
        for i in range(missing):
            my |= pool[i]
        best, ties = keys[my], 1
        if top_known > best:
            continue
        if top_known == best:
            ties += known_ties
        for i in range(missing, need, 3):
            key = keys[pool[i] | pool[i + 1] | pool[i + 2]]
            if key > best:
                break
            if key == best:
                ties += 1
        else:
            total += 1 / ties
    return total / samples


class Odds(NamedTuple):
    """A seat's chances: `eq` its expected pot share, `fair` the share of an average hand,
    `strength` the chance of beating one rival that gives `eq` against all of them."""

    eq: float
    fair: float
    strength: float

    def pays(self, pot: int, price: int) -> bool:
        """Whether paying `price` into `pot` is worth it: equity × the pot after it."""
        return self.eq * (pot + price) >= price


OddsPolicy = Callable[["OddsBot", str, Sequence[Legal], View, Reading], Action]
"""The odds bot's play in one game: (bot, player, legal, view, reading) → its action."""


class Plays(Protocol):
    """What the odds bot reads of a game's record (game.py `Game`): its scorer and its
    policy, defined by the game's own module."""

    @property
    def scorer(self) -> Scorer: ...

    @property
    def odds_policy(self) -> OddsPolicy: ...


class OddsBot(Bot):
    """The stronger bot for every game: equity from the unseen cards, pot odds, rare
    bluffs. Deterministic given its `random.Random`.

    It plays each game of `records` (the registry's `GAMES`, handed over by whoever seats
    it: this module is below the games, whose policies use what it offers) by that game's
    own policy."""

    def __init__(self, rng: random.Random, records: Mapping[str, Plays], samples: int = SAMPLES):
        super().__init__(rng)
        self.records = records
        self.samples = samples
        self._equities: dict[tuple[object, ...], float] = {}

    @classmethod
    def new(cls, rng: random.Random, records: Mapping[str, Plays]) -> OddsBot:
        return cls(rng, records)

    def wants_dark(self) -> bool:
        return self.rng.random() < DARK

    # --- what the cards are worth -------------------------------------------------------
    def odds(self, scorer: Scorer, reading: Reading) -> Odds:
        """The seat's equity (its expected share of the pot at a showdown) from `reading`
        alone, with the measures the policies compare it to."""
        rivals = len(reading.known) + reading.unknown
        fair = 1 / (rivals + 1)
        if not reading.mine and not reading.known:
            eq = fair  # nothing seen: every seat is alike
        else:
            key = (scorer.game, *reading)
            if key not in self._equities:
                if len(self._equities) >= CACHE:
                    self._equities.clear()
                self._equities[key] = self._compute(scorer, reading)
            eq = self._equities[key]
        return Odds(eq, fair, eq ** (1 / max(rivals, 1)))

    def _compute(self, scorer: Scorer, reading: Reading) -> float:
        if len(reading.mine) == 3 and reading.unknown <= 1:
            my = scorer.keys[_bits(reading.mine)]
            if any(k > my for k in reading.known):
                return 0.0
            ties = 1 + reading.known.count(my)
            if not reading.unknown:
                return 1 / ties
            below, equal = against_one(scorer, reading.mine, reading.dead)
            return below / ties + equal / (ties + 1)
        return sampled_equity(scorer, reading, self.rng, self.samples)

    # --- choosing -----------------------------------------------------------------------
    def choose(self, player: str, legal: Sequence[Legal], view: View | None) -> Action:
        assert view is not None
        if not legal:
            return Action(player, "timeout")
        game = self.records[view["game"]]
        return game.odds_policy(self, player, legal, view, read(view, player, game.scorer))

    def pick(self, player: str, legal: Sequence[Legal], *wanted: str) -> Action | None:
        """The first of `wanted` (an action name, or "propose:split") that is legal."""
        for want in wanted:
            do, _, deal = want.partition(":")
            for option in legal:
                if option.do == do and (option.deal or "") == deal:
                    return concrete(player, option, self.rng)
        return None

    def either(self, player: str, legal: Sequence[Legal], yes: bool, do: str, dont: str) -> Action:
        """`do` if `yes`, else `dont` (both are offered together: join/skip, agree/refuse…)."""
        action = self.pick(player, legal, do if yes else dont, dont)
        assert action is not None, f"{dont} is not offered: {legal}"
        return action

    def entry(self, player: str, legal: Sequence[Legal], pot: int, fee: int, free: int) -> Action:
        """C-7.3, S-7.3, B-5.2: buy into a Svara when the pot share of a fresh deal among
        the free players and itself is worth the fee (a fair price is taken: the bot
        outplays a weak table)."""
        return self.either(player, legal, (pot + fee) / (free + 1) >= fee, "join", "skip")

    def sized(self, player: str, option: Legal, level: int, pot: int, share: float) -> Action:
        """A bet or raise of about `share` of the pot above the level, inside the range."""
        if option.min_to is None or option.max_to is None or option.to is not None:
            return concrete(player, option, self.rng)
        to = max(option.min_to, min(option.max_to, level + round(share * pot)))
        return Action(player, option.do, to)

    # --- the betting of shaha36 and svara32 --------------------------------------------
    def betting(self, player: str, legal: Sequence[Legal], view: View, odds: Odds) -> Action:
        """Check/call/bet/raise/fold by equity and pot odds (S-3, B-3)."""
        options = {o.do: o for o in legal}
        stay = options.get("check") or options.get("call")
        grow = options.get("raise") or options.get("bet")
        if stay is None:  # the dark circle (S-4.2): ×2 is the only way on
            stay, grow = options.get("dark") or grow, None
        level, pot = view["level"] or 0, view["pot"]
        price = stay.price if stay is not None else 0
        bluff = price == 0 and self.rng.random() < BLUFF
        if grow is not None and (odds.strength >= RAISE or bluff):
            share = 1.0 if odds.strength >= BIG_RAISE else 0.5
            return self.sized(player, grow, level, pot, share)
        if stay is not None and (price == 0 or odds.pays(pot, price)):
            return concrete(player, stay, self.rng)
        return Action(player, "fold")


def to_of(option: Legal) -> int:
    """An option's fixed amount, 0 for none (to sort raises by)."""
    return option.to or 0
