"""The `shaha36` hand (docs/rules/shaha36.md, S-…): one explicit state machine.

36 cards with the 6♣ «шаха», a table stack per player, the ante «кон», pot-limit betting in
one betting round per deal, the dark circle, all-in with one pot, the showdown in order with
show/muck for weaker hands, the tie vote, Svara with buy-ins, and the rake. The phases:

- `betting`: the player in `current` acts; anyone still in the deal may `look` at any time;
- `showdown`: hands open in order (S-6.1); a weaker one waits for `show`/`muck` (S-6.2);
- `tie`: two tied in the first deal vote `cook`/`split` (S-7.1; a tie in a Svara is the
  next Svara at once, S-7.5);
- `buy_in`: the Svara buy-in is offered to one player at a time (S-7.3);
- `finished`.

Every action is checked against `legal` by `Hand.check` before anything changes, so a
refused action leaves the hand as it was (`Hand.act` undoes a Svara deal that cannot be
drawn); `_why_not` only runs to explain a refusal.

Why one module of ~850 lines: the same as classic.py — one state machine whose phases
share the turn order, the stacks and the pot; it ends with the odds bot's reading of this
game and the game's `Game` record.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .cards import Card, card, make_deck
from .game import Game, Manners
from .hand import (
    HOUSE,
    POT,
    Action,
    DealSource,
    Event,
    Hand,
    HandResult,
    Legal,
    RuleError,
    Seat,
    Transfer,
)
from .policies.base import View, concrete
from .policies.odds import DARK, OddsBot, Reading
from .scoring import Score, Scorer, plain_best, ranks_of
from .variants import Param, Variant, build_variant, params

BETTING, SHOWDOWN, TIE, BUY_IN, FINISHED = "betting", "showdown", "tie", "buy_in", "finished"
ACTIONS = (
    "check", "bet", "call", "raise", "fold", "dark", "look",
    "show", "muck", "cook", "split", "join", "skip", "timeout",
)  # fmt: skip
SHAHA = card("6", "♣")


def shaha36_rule(cards: Sequence[Card]) -> Score:
    """S-2.1..S-2.7 evaluated directly, with the names shown at showdown (S-2.7)."""
    ranks = ranks_of(cards)
    if ranks.count("6") == 3:
        return Score.of(34, "три шахи")  # S-2.6: the 6♣ is a plain six here
    if ranks.count("A") == 3:
        return Score.of(33, "три лба")
    if len(set(ranks)) == 1:
        return Score.of(32.5)  # S-2.5
    best = plain_best(cards)
    if SHAHA in cards:  # S-2.3: +11 to the best suit of the other two, never a pair to three
        best = max(best, 11 + plain_best([c for c in cards if c != SHAHA]))
    if ranks.count("A") == 2 and best <= 22:
        return Score.of(22, "два лба")  # S-2.4
    suits = {c.suit for c in cards}
    if best == 31 and len(suits) == 1 and SHAHA not in cards:
        return Score.of(31, "старшие трынки")
    return Score.of(best)


SCORER = Scorer("shaha36", make_deck("6", joker=False), shaha36_rule)
FOLD, CHECK = Legal("fold"), Legal("check")
# S-1.3 Decision: a look turns one more card, or up to `to` in all (by cards already turned)
LOOKS = {n: Legal.range("look", n + 1, 3, 0, default=n + 1) for n in range(3)}
SHOW_OR_MUCK = [Legal("show"), Legal("muck")]
VOTES = [Legal("cook"), Legal("split")]


class Shaha36Hand(Hand):
    """One shaha36 hand, from the ante to the last Svara."""

    game = "shaha36"
    actions = ACTIONS

    def __init__(
        self,
        variant: Variant,
        seats: Sequence[Seat],
        dealer: str,
        deals: DealSource,
        dark: str | None = None,
    ):
        super().__init__(variant, seats, dealer, deals, dark)
        self._check_setup()
        self.order = tuple(s.name for s in self.seats)
        self.seat_index = {p: i for i, p in enumerate(self.order)}
        self.ante: int = variant["ante"]
        self.stack = {s.name: s.balance for s in self.seats}
        self.pot = 0
        self.rake = 0
        self.svaras = 0
        self.winners: list[str] = []
        # the showdown (S-6), the tie vote (S-7.1) and the buy-in (S-7.3)
        self.queue: list[str] = []
        self.asking: str | None = None
        self.best: int | None = None
        self.tied: list[str] = []
        self.votes: dict[str, str] = {}
        self.svara_dealer = dealer
        self.fee = 0
        self.offers: list[str] = []
        self.joined: list[str] = []
        for p in self.order:  # S-1.2: everyone puts the ante into the pot
            self._pay(p, self.ante, "ante")
        self.antes = self.pot
        self.events.append(Event("ante", data={"amount": self.ante, "pot": self.pot}))
        self._start_deal(self.order, dealer)

    @classmethod
    def stake(cls, variant: Variant) -> int:
        """S-1.5: a seat sits down with at most `buy_in_max` antes from the balance."""
        return variant["buy_in_max"] * variant["ante"]

    def _check_setup(self) -> None:
        """Refuse a table the rules cannot deal (S-1.2), before any money moves."""
        v, names = self.variant, [s.name for s in self.seats]
        if v.game != self.game:
            raise RuleError(f"variant {v.name} is a {v.game} variant, not shaha36")
        if not 2 <= len(names) <= v["seats"]:
            raise RuleError(f"shaha36 deals to 2..{v['seats']} players, not {len(names)} (S-1.2)")
        if len(set(names)) != len(names):
            raise RuleError("player names must be distinct")
        if self.dealer not in names:
            raise RuleError(f"the dealer {self.dealer!r} is not at the table")
        if self.dark_choice is not None:
            raise RuleError(
                "in shaha36 the dark is an action of the first player after the dealer "
                "(S-4.1), not a choice before the deal"
            )
        for s in self.seats:
            if s.balance < v["ante"]:
                raise RuleError(
                    f"{s.name}'s stack {s.balance} does not cover the ante {v['ante']} (S-1.2)"
                )

    # --- seats and money ----------------------------------------------------------------
    def _clockwise(self, start: str, among: Iterable[str]) -> list[str]:
        """The players of `among` clockwise from the seat after `start` (`start` itself last)."""
        pool = set(among)
        i, n, order = self.seat_index[start], len(self.order), self.order
        return [q for k in range(1, n + 1) if (q := order[(i + k) % n]) in pool]

    def _live(self) -> list[str]:
        """The players of the deal still in it, in seat order."""
        return [p for p in self.in_deal if p not in self.folded and p not in self.mucked]

    def _capped(self) -> bool:
        """S-5.2: once a player in the deal is all-in, nobody raises until the hand ends."""
        return any(self.stack[p] == 0 for p in self._live())

    def _pay(self, p: str, amount: int, kind: str) -> None:
        self.stack[p] -= amount
        self.pot += amount
        self.transfers.append(Transfer(amount, p, POT, kind))

    def _pay_out(self, p: str, amount: int, kind: str) -> None:
        self.stack[p] += amount
        self.pot -= amount
        self.transfers.append(Transfer(amount, POT, p, kind))

    def _emit(self, kind: str, player: str | None = None, **data: Any) -> None:
        self.events.append(Event(kind, player, data))

    # --- the deal -----------------------------------------------------------------------
    def _start_deal(self, players: Sequence[str], dealer: str) -> None:
        """S-1.3, S-1.4, S-7.4: three cards each, dealt clockwise from after `dealer`; the
        first after him opens the betting. S-7.5: a player with 0 means no betting at all."""
        dealing = self._clockwise(dealer, players)
        deal = self.draw(dealing)
        self.deal_dealer = dealer
        self.in_deal = tuple(p for p in self.order if p in deal.cards)
        self.cards = dict(deal.cards)
        self.turned = dict.fromkeys(self.in_deal, 0)
        self.paid = dict.fromkeys(self.in_deal, 0)
        self.folded: set[str] = set()
        self.mucked: set[str] = set()
        self.shown: dict[str, Score] = {}
        self.dark_bets: set[str] = set()
        self.level = 0
        self.last_inc = self.ante  # S-3.2: the smallest bet, then the last raise increment
        self.dark_circle = False
        self.acted = False
        self.last_caller: str | None = None
        self.opener = dealing[0]
        self.current: str | None = None
        self.phase = BETTING
        self._emit("deal", round=self.svaras, dealer=dealer, players=dealing)
        self.pending = {p for p in self.in_deal if self.stack[p] > 0}
        if len(self.pending) < len(self.in_deal):
            self.pending = set()
            self._emit("no_betting", players=[p for p in self.in_deal if self.stack[p] == 0])
            self._end_betting()
        else:
            self.current = self.opener

    # --- what is happening --------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.phase == FINISHED

    @property
    def next_dealer(self) -> str | None:
        """S-1.4: the deal moves one seat clockwise (a Svara's dealer does not carry over)."""
        if self.phase != FINISHED:
            return None
        return self.order[(self.seat_index[self.dealer] + 1) % len(self.order)]

    def awaiting(self) -> tuple[str, ...]:
        phase = self.phase
        if phase == BETTING:
            return (self.current,) if self.current else ()
        if phase == SHOWDOWN:
            return (self.asking,) if self.asking else ()
        if phase == TIE:
            return tuple(p for p in self.tied if p not in self.votes)
        if phase == BUY_IN:
            return (self.offers[0],)
        return ()

    def legal(self, player: str | None) -> list[Legal]:
        if player is None or player not in self.stack:
            return []
        out = self._options(player) if player in self.awaiting() else []
        if self._may_look(player):
            out = [*out, LOOKS[self.turned[player]]]
        return out

    def _options(self, p: str) -> list[Legal]:
        """What the awaited player `p` may do now, `look` and `timeout` aside."""
        phase = self.phase
        if phase == BETTING:
            return self._betting_options(p)
        if phase == SHOWDOWN:
            return SHOW_OR_MUCK
        if phase == TIE:
            return VOTES
        return [Legal("join", price=self.fee), Legal("skip")]

    def _may_look(self, p: str) -> bool:
        """S-1.3: cards are turned by their owner, at any moment of the betting."""
        return (
            self.phase == BETTING
            and self.turned.get(p, 3) < 3
            and p not in self.folded
            and p not in self.mucked
        )

    def _betting_options(self, p: str) -> list[Legal]:
        paid, level = self.paid[p], self.level
        all_in = paid + self.stack[p]
        if self.dark_circle:  # S-4.2, S-5.3: exactly ×2 (all-in if short), or fold
            to = min(2 * level, all_in)
            do = "dark" if not self.turned[p] else ("raise" if to > level else "call")
            return [Legal.fixed(do, to, to - paid), FOLD]
        if paid == level:
            out = [CHECK]
        else:
            to = min(level, all_in)
            out = [Legal.fixed("call", to, to - paid)]
        if all_in > level and not self._capped():
            if level == 0:
                if self._may_start_dark(p):  # S-4.1
                    to = min(self.ante, all_in)
                    out.append(Legal.fixed("dark", to, to))
                out.append(self._range("bet", p, self.ante, self.pot))  # S-3.2
            else:  # S-3.2 Decision: increment ≥ the last one, ≤ the pot after the call
                out.append(self._range("raise", p, level + self.last_inc, self._raise_limit(p)))
        out.append(FOLD)
        return out

    def _raise_limit(self, p: str) -> int:
        """S-3.2: a raise adds at most the pot as it stands after the raiser's call."""
        owe = self.level - self.paid[p]
        return self.level + self.pot + owe

    def _range(self, do: str, p: str, low: int, high: int) -> Legal:
        """A bet or raise from `low` to `high`, within the stack; all-in if the stack is short
        of `low` (S-5.1)."""
        paid = self.paid[p]
        all_in = paid + self.stack[p]
        if all_in <= low:
            return Legal.fixed(do, all_in, all_in - paid)
        return Legal.range(do, low, min(high, all_in), low - paid)

    def _may_start_dark(self, p: str) -> bool:
        """S-4.1: only the first player after the dealer, unlooked, as the first action."""
        return (
            self.variant["dark"]
            and p == self.opener
            and not self.acted
            and self.turned[p] == 0
            and self.level == 0
        )

    # --- acting -------------------------------------------------------------------------
    def _apply(self, a: Action) -> None:
        if a.do == "timeout":
            self._timeout(a.player)
        else:
            getattr(self, "_do_" + a.do)(a.player, a.to)

    def _why_not(self, a: Action) -> str | None:
        """The rule behind a refusal: the look's, an amount's, or why the awaited player may
        not do that now (the checks of `_options`, in words)."""
        p, do = a.player, a.do
        if do == "look":
            return self._why_not_look(p, a.to)
        named = [o for o in self.legal(p) if o.do == do]
        if named:
            return self._why_not_amount(p, named[0], a.to) if a.to is not None else None
        return self._why_not_now(p, do) if p in self.awaiting() else None

    def _why_not_look(self, p: str, to: int | None) -> str:
        """S-1.3 Decision: `look` turns one more card; with `to`, up to `to` cards in all."""
        if self.phase != BETTING:
            return "cards are turned during the betting; at the showdown they open"
        if p not in self.turned:
            return f"{p} has no cards in this deal"
        if p in self.folded:
            return f"{p} has folded"
        if self.turned[p] == 3:
            return f"{p} has turned all three cards already (S-1.3)"
        return "look to is how many cards are face up after it (S-1.3)"

    def _why_not_amount(self, p: str, option: Legal, to: int) -> str | None:
        """Why `to` is not the amount of `option` (S-3.2, S-4.2, S-5.1)."""
        if option.min_to is None:
            if option.to is None:
                return None
            if option.to == self.paid[p] + self.stack[p]:
                return f"that is all {p} has (S-5.1, S-5.3)"
            if self.dark_circle:
                return "in the dark circle each bet is exactly ×2 the previous one (S-4.2)"
            return "the amount is fixed"
        if to < option.min_to:
            if option.do == "bet":
                return f"a bet is at least the ante: {option.min_to} (S-3.2)"
            return (
                f"a raise goes to at least {option.min_to}: it adds at least the last bet or "
                f"raise, {self.last_inc} (S-3.2)"
            )
        limit = self.pot if option.do == "bet" else self._raise_limit(p)
        if to > limit:
            what = "a bet is at most the pot" if option.do == "bet" else "a raise adds at most"
            return f"{option.do} to {to} is over the pot limit: {what}, to {limit} (S-3.2)"
        return f"{p} has {self.stack[p]}: all-in is to {self.paid[p] + self.stack[p]} (S-5.1)"

    def _why_not_now(self, p: str, do: str) -> str:
        """Why the awaited player `p` may not `do` now (the checks of `_options`, in words)."""
        if self.phase == BETTING:
            if self.dark_circle:
                if do == "dark" and self.turned[p]:
                    return f"{p} has looked: raise ×2 to un-darken the circle, or fold (S-4.3)"
                if do == "raise" and not self.turned[p]:
                    return f"{p} has not looked: go dark ×2, or look first (S-4.2, S-4.3)"
                expected = ", ".join(o.do for o in self._options(p))
                return f"in the dark circle each player bets ×2 or folds (S-4.2): {expected}"
            if do == "check":
                return f"{p} cannot check: {self.level - self.paid[p]} to call (S-3.1)"
            if do == "call":
                return "nothing to call: check or bet (S-3.1)"
            if do in ("bet", "raise", "dark") and self._capped():
                return "after an all-in nobody raises: call the all-in amount or fold (S-5.2)"
            if do == "bet":
                return f"there is a bet already: call {self.level} or raise (S-3.1)"
            if do == "raise":
                if self.level == 0:
                    return "nothing to raise: bet (S-3.1)"
                return f"{p} has {self.stack[p]}, only enough to call (S-5.1)"
            if do == "dark":
                if not self.variant["dark"]:
                    return "the dark is off at this table (S-4)"
                if p != self.opener:
                    return (
                        f"only {self.opener}, the first after the dealer, starts the dark (S-4.1)"
                    )
                if self.turned[p]:
                    return f"{p} has looked: only an unlooked player starts the dark (S-4.1)"
                return "the dark starts only as the first action of the betting (S-4.1)"
        where = {
            "show": "a weaker hand at the showdown shows or mucks (S-6.2)",
            "muck": "a weaker hand at the showdown shows or mucks (S-6.2)",
            "cook": "only two tied players vote cook or split (S-7.1)",
            "split": "only two tied players vote cook or split (S-7.1)",
            "join": "join and skip answer a Svara buy-in offer (S-7.3)",
            "skip": "join and skip answer a Svara buy-in offer (S-7.3)",
        }
        return where.get(do, f"{do} is for the betting (S-3.1)")

    # --- betting (S-3, S-4, S-5) ----------------------------------------------------------
    def _put(self, p: str, to: int, kind: str) -> None:
        """Bring `p`'s bet in this round up to `to`."""
        self._pay(p, to - self.paid[p], kind)
        self.paid[p] = to

    def _do_look(self, p: str, n: int) -> None:
        """S-1.3: turning any card means he has looked, and everyone sees that (Decision)."""
        self.turned[p] = n
        self._emit("look", p, turned=n)

    def _do_check(self, p: str, _: int | None) -> None:
        self.pending.discard(p)
        self.acted, self.last_caller = True, p
        self._emit("check", p)
        self._next(p)

    def _do_call(self, p: str, to: int) -> None:
        self._emit("call", p, to=to, all_in=self.stack[p] == to - self.paid[p])
        self._called(p, to, "bet")

    def _called(self, p: str, to: int, kind: str) -> None:
        """Match the level, or as much of it as `p` has (S-5.1: the rest goes back)."""
        self._put(p, to, kind)
        self.pending.discard(p)
        self.acted, self.last_caller = True, p
        if to < self.level:
            self._short_all_in(to)
        self._next(p)

    def _do_bet(self, p: str, to: int) -> None:
        self._raise(p, to, "bet")

    def _do_raise(self, p: str, to: int) -> None:
        if self.dark_circle:  # S-4.3: a looked ×2 ends the dark for all
            self.dark_circle = False
            self._emit("undark", p)
        self._raise(p, to, "raise")

    def _do_dark(self, p: str, to: int) -> None:
        """S-4.1, S-4.2: the opener's dark bet of one ante starts the circle; each next
        unlooked player doubles it."""
        self.dark_bets.add(p)
        if self.level == 0:
            self.dark_circle = True
        self._raise(p, to, "dark")

    def _raise(self, p: str, to: int, kind: str) -> None:
        level, money = self.level, "dark" if kind == "dark" else "bet"
        self._emit(kind, p, to=to, all_in=self.stack[p] == to - self.paid[p])
        if to <= level:  # S-5.3: an all-in dark for no more than the level is a call
            self._called(p, to, money)
            return
        self._put(p, to, money)
        self.acted = True
        self.last_inc = max(self.last_inc, to - level)
        self.level = to
        self.pending = {q for q in self._live() if self.stack[q] > 0 and q != p}
        self._next(p)

    def _short_all_in(self, amount: int) -> None:
        """S-5.1: whoever is still in and bet more than the all-in gets the excess back;
        the all-in amount is the level from now on (folded bets stay in the pot)."""
        for q in self._live():
            excess = self.paid[q] - amount
            if excess > 0:
                self._pay_out(q, excess, "return")
                self.paid[q] = amount
                self._emit("return", q, amount=excess)
        self.level = amount
        self.pending = {q for q in self.pending if self.paid[q] < amount}

    def _do_fold(self, p: str, _: int | None) -> None:
        self.folded.add(p)
        self.pending.discard(p)
        self.acted = True
        self._emit("fold", p)
        self._next(p)

    def _next(self, after: str) -> None:
        """Pass the turn clockwise to the next player who still has to act (S-3.3)."""
        if self._capped():
            self.dark_circle = False
        live = self._live()
        ahead = self._clockwise(after, self.pending) if len(live) > 1 else []
        if not ahead:
            self._end_betting()
            return
        self.current = ahead[0]
        if self.dark_circle and self.current == self.opener:  # S-4.3: the second circle
            self.dark_circle = False
            self._emit("dark_over")

    def _end_betting(self) -> None:
        """S-3.3: everyone has called (or all checked): showdown; one left: he takes it."""
        self.current = None
        live = self._live()
        if len(live) == 1:
            winner = live[0]
            top = max((self.paid[q] for q in self.in_deal if q != winner), default=0)
            uncalled = self.paid[winner] - top
            if uncalled > 0:  # Decision (S-3.3): an uncalled bet goes back to its owner
                self._pay_out(winner, uncalled, "return")
                self.paid[winner] = top
                self._emit("return", winner, amount=uncalled)
            self._pay_pot([winner])
            return
        self._showdown(live)

    def _timeout(self, p: str) -> None:
        """S-3.4, S-4.4: check if he owes nothing, else fold; S-6.2: muck; S-7.1: a vote
        for split; S-7.3: skip."""
        self._emit("timeout", p)
        phase = self.phase
        if phase == BETTING:
            if self.paid[p] == self.level:
                self._do_check(p, None)
            else:
                self._do_fold(p, None)
        elif phase == SHOWDOWN:
            self._do_muck(p, None)
        elif phase == TIE:
            self._do_split(p, None)
        else:
            self._do_skip(p, None)

    # --- showdown (S-6) -----------------------------------------------------------------
    def _showdown(self, live: list[str]) -> None:
        """S-6.1: the last caller opens first, then clockwise."""
        self.phase = SHOWDOWN
        first = (
            self.last_caller
            if self.last_caller in live
            else self._clockwise(self.deal_dealer, live)[0]
        )
        self.queue = [first, *self._clockwise(first, live)[:-1]]
        for q in live:
            self.turned[q] = 3
        self.best = None
        self._emit("showdown", order=list(self.queue))
        self._open_next()

    def _open_next(self) -> None:
        """S-6.2: a hand at least as strong as the best shown opens by itself (Decision:
        an equal one too); a weaker one waits for show or muck."""
        while self.queue:
            q = self.queue[0]
            score = SCORER.score(self.cards[q])
            if self.best is not None and score.key < self.best:
                self.asking = q
                return
            self.queue.pop(0)
            self._reveal(q, score, by_itself=True)
        self.asking = None
        self._settle()

    def _reveal(self, q: str, score: Score, by_itself: bool) -> None:
        self.shown[q] = score
        self.best = score.key if self.best is None else max(self.best, score.key)
        cards = [str(c) for c in self.cards[q]]
        self._emit(
            "show", q, cards=cards, points=score.points, label=score.label, by_itself=by_itself
        )

    def _do_show(self, p: str, _: int | None) -> None:
        self.queue.pop(0)
        self._reveal(p, SCORER.score(self.cards[p]), by_itself=False)
        self._open_next()

    def _do_muck(self, p: str, _: int | None) -> None:
        """S-6.2: a mucked hand is never seen by anyone (it is in no view and no event)."""
        self.queue.pop(0)
        self.mucked.add(p)
        self._emit("muck", p)
        self._open_next()

    def _settle(self) -> None:
        """S-6.3: the best hand takes the pot; S-7.1: two tied in the first deal vote, three
        or more cook; S-7.5: a tie in a Svara is the next Svara at once, and after the last
        allowed Svara a tie splits."""
        tied = [q for q in self.in_deal if q in self.shown and self.shown[q].key == self.best]
        if len(tied) == 1:
            self._pay_pot(tied)
        elif self.svaras >= self.variant["max_svaras"]:
            self._emit("svara_limit", svaras=self.svaras)
            self._pay_pot(tied)
        elif len(tied) == 2 and not self.svaras:
            self.phase, self.tied, self.votes = TIE, tied, {}
            self._emit("tie", players=tied)
        else:
            self._svara(tied)

    # --- the tie vote and Svara (S-7) ---------------------------------------------------
    def _do_cook(self, p: str, _: int | None) -> None:
        """S-7.1: one «Варить» is enough."""
        self.votes[p] = "cook"
        self._emit("vote", p, deal="cook")
        self._svara(self.tied)

    def _do_split(self, p: str, _: int | None) -> None:
        self.votes[p] = "split"
        self._emit("vote", p, deal="split")
        if len(self.votes) == len(self.tied):
            self._pay_pot(self.tied)

    def _svara(self, tied: list[str]) -> None:
        """S-7.2..S-7.4: the pot carries; the last tied clockwise deals; the others may buy
        in for ceil(pot / tied) if more than two pots stay in front of them."""
        self.svaras += 1
        self.tied = tied
        self.svara_dealer = self._clockwise(self.deal_dealer, tied)[-1]
        pot = self.pot
        self.fee = -(-pot // len(tied))
        self.offers = [
            q
            for q in self._clockwise(self.svara_dealer, self.order)
            if q not in tied and self.stack[q] - self.fee > 2 * pot
        ]
        self.joined = []
        self._emit(
            "svara",
            round=self.svaras,
            players=tied,
            dealer=self.svara_dealer,
            fee=self.fee,
            offers=list(self.offers),
        )
        if self.offers:
            self.phase = BUY_IN
        else:
            self._deal_svara()

    def _do_join(self, p: str, _: int | None) -> None:
        self._pay(p, self.fee, "fee")
        self.joined.append(p)
        self._emit("join", p, fee=self.fee)
        self._offered(p)

    def _do_skip(self, p: str, _: int | None) -> None:
        self._emit("skip", p)
        self._offered(p)

    def _offered(self, p: str) -> None:
        self.offers.pop(0)
        if not self.offers:
            self._deal_svara()

    def _deal_svara(self) -> None:
        players = [q for q in self.order if q in self.tied or q in self.joined]
        self._start_deal(players, self.svara_dealer)

    # --- the pot (S-6.3, S-7.6, S-8) ------------------------------------------------------
    def _rake_due(self) -> int:
        """S-8.1, S-8.2: a share of the final pot, capped, rounded down; none on a pot of
        antes only, none at a table with a bot."""
        if self.variant["bots"] or self.pot <= self.antes:
            return 0
        cap = self.variant["rake_cap_antes"] * self.ante
        return min(self.pot * self.variant["rake_percent"] // 100, cap)

    def _pay_pot(self, winners: list[str]) -> None:
        """The pot less the rake to the winner, or split: remainder chips one by one
        clockwise from the first tied player after the dealer (S-7.6)."""
        rake = self._rake_due()
        if rake:
            self.pot -= rake
            self.rake = rake
            self.transfers.append(Transfer(rake, POT, HOUSE, "rake"))
            self._emit("rake", amount=rake)
        share, extra = divmod(self.pot, len(winners))
        kind = "award" if len(winners) == 1 else "split"
        amounts = {}
        for i, q in enumerate(self._clockwise(self.deal_dealer, winners)):
            amounts[q] = share + (1 if i < extra else 0)
            self._pay_out(q, amounts[q], kind)
        self.winners = [q for q in self.order if q in amounts]
        self.phase = FINISHED
        self._emit(kind, amounts=amounts)

    # --- what each viewer sees ----------------------------------------------------------
    def _state(self, p: str) -> str:
        if p not in self.turned:
            return "out"
        if p in self.folded:
            return "folded"
        if p in self.mucked:
            return "mucked"
        return "shown" if p in self.shown else "playing"

    def _cards_for(self, p: str, viewer: str | None, state: str) -> list[str] | None:
        """Shown hands to all; a live hand's turned cards to its owner; nothing else, ever
        (folded and mucked hands stay hidden even from their owner's view)."""
        if state == "shown":
            return [str(c) for c in self.cards[p]]
        if viewer == p and state == "playing" and self.turned[p]:
            return [str(c) for c in self.cards[p][: self.turned[p]]]
        return None

    def view(self, viewer: str | None) -> dict[str, Any]:
        players = []
        for p in self.order:
            state = self._state(p)
            seat: dict[str, Any] = {
                "name": p,
                "balance": self.stack[p],
                "state": state,
                "paid": self.paid.get(p, 0),
                "cards": self._cards_for(p, viewer, state),
                "turned": self.turned.get(p, 0),
                "looked": self.turned.get(p, 0) > 0,
                "dark": p in self.dark_bets,
                "all_in": state in ("playing", "shown") and self.stack[p] == 0,
            }
            if state == "shown":
                seat["points"], seat["label"] = self.shown[p].points, self.shown[p].label
            players.append(seat)
        out: dict[str, Any] = {
            "game": self.game,
            "variant": self.variant.name,
            "phase": self.phase,
            "dealer": self.deal_dealer,
            "ante": self.ante,
            "pot": self.pot,
            "level": self.level if self.phase == BETTING else None,
            "round": self.svaras,
            "dark_circle": self.dark_circle,
            "turn": self.current,
            "players": players,
            "awaiting": list(self.awaiting()),
            "legal": [option.as_json() for option in self.legal(viewer)],
            "events": self.public_events(viewer),
            "result": None,
        }
        if self.phase == TIE:
            out["tie"] = {"players": list(self.tied), "votes": dict(self.votes)}
        if self.phase == BUY_IN:
            out["svara"] = {
                "players": list(self.tied),
                "fee": self.fee,
                "offers": list(self.offers),
            }
        if self.phase == FINISHED:
            out["result"] = self.result()._asdict()
        return out

    def result(self) -> HandResult:
        if self.phase != FINISHED:
            raise RuleError(f"the hand is not over: waiting for {', '.join(self.awaiting())}")
        return HandResult(dict(self.stack), list(self.winners), self.rake, self.svaras)


# --- the odds bot (policies/odds.py) -----------------------------------------------------


def odds_play(
    bot: OddsBot, player: str, legal: Sequence[Legal], view: View, reading: Reading
) -> Action:
    """The odds bot's play in shaha36 (policies/odds.py `OddsPolicy`)."""
    dos = {o.do for o in legal}
    phase = view["phase"]
    if phase == "showdown":  # S-6.2: a weaker hand gains nothing by showing
        return Action(player, "muck")
    if phase == "tie":  # S-7.1: replay a pot that is small beside the stack, else split
        stack = next(p["balance"] for p in view["players"] if p["name"] == player)
        return bot.either(player, legal, view["pot"] * 4 <= stack, "cook", "split")
    if phase == "buy_in":
        svara = view["svara"]
        return bot.entry(player, legal, view["pot"], svara["fee"], len(svara["players"]))
    if "dark" in dos and not reading.mine and bot.rng.random() < DARK:  # S-4.1, S-4.2
        return concrete(player, next(o for o in legal if o.do == "dark"), bot.rng)
    if "look" in dos and len(reading.mine) < 3:  # S-1.3: turning costs nothing
        return Action(player, "look")
    return bot.betting(player, legal, view, bot.odds(SCORER, reading))


# --- the game ---------------------------------------------------------------------------

PARAMS = params(
    Param("seats", int, 6, "seats at the table (S-1.2)", 2, 6),
    Param("ante", int, 10, "the ante, «кон» (S-1.2)", 1, 1_000_000),
    Param("buy_in_min", int, 20, "smallest stack, in antes (S-1.5)", 1, 10_000),
    Param("buy_in_max", int, 100, "largest stack, in antes (S-1.5)", 1, 10_000),
    Param("dark", bool, True, "the dark circle is allowed (S-4)"),
    Param("turn_seconds", int, 20, "time for one decision (S-3.4)", 5, 600),
    Param("new_hand_seconds", int, 30, "time to press «Новая раздача» (S-1.6)", 5, 600),
    Param("show_seconds", int, 3, "time to show or muck a weaker hand (S-6.2)", 1, 60),
    Param("tie_seconds", int, 10, "time for two tied players to split or cook (S-7.1)", 1, 120),
    Param("buy_in_seconds", int, 10, "time for each Svara buy-in offer (S-7.3)", 1, 120),
    Param("offline_seconds", int, 120, "offline time before standing up (S-1.7)", 10, 3600),
    Param("rake_percent", int, 3, "rake of the final pot, percent (S-8.1)", 0, 100),
    Param("rake_cap_antes", int, 10, "rake ceiling in antes (S-8.1)", 0, 1000),
    Param("max_svaras", int, 10, "Svaras in a row before the pot is split (S-7.5)", 1, 100),
    Param("bots", bool, False, "a bot sits at the table: no rake (S-8.2)"),
)

GAME = Game(
    name="shaha36",
    title="Свара · 36 карт, шаха",
    hand=Shaha36Hand,
    scorer=SCORER,
    params=PARAMS,
    presets=(
        build_variant(
            "shaha36", "shaha36", "36 cards, the 6♣ «шаха», pot limit, rake (S-1, S-8)", PARAMS, {}
        ),
    ),
    manners=Manners(
        stacks=True,
        gather_param="new_hand_seconds",
        gather_after_hand=True,
        stand_idle=False,
        stand_offline=True,
        chat_in_hand=False,
        phase_seconds={
            "showdown": "show_seconds",
            "tie": "tie_seconds",
            "buy_in": "buy_in_seconds",
        },
    ),
    odds_policy=odds_play,
    demo_tables=(("Шаха", "shaha36", {}),),
)
