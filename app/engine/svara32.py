"""The `svara32` hand: Bulgarian Svara, its betting (B-3, B-4) and traditional options (B-6).

Rules are `docs/rules/svara32.md` (B-…); the decisions taken where it is silent are in
`docs/rules.md` (## svara32). Amounts: every bet is counted in *level units*. A dark or
blind bet is made unseen and counts double (B-4.2, B-6.1): a blind of X chips puts the
player's bet and the level at 2X, so a sighted player matching it pays 2X. All later
payments are face value. With `blind_pays_to_see` (B-6.2) the blind's double value binds
only the others: the blind bettor himself must bring his chips up to the level to see.

Why one module of ~680 lines: the same as classic.py — one state machine whose phases share
the turn order, the level and the pot; it ends with the odds bot's reading of this game and
the game's `Game` record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .cards import Card, card, make_deck
from .game import Game, Manners
from .hand import (
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
from .policies.base import View
from .policies.odds import DARK, OddsBot, Reading
from .scoring import VALUE, Score, Scorer, best_of, plain_best, ranks_of
from .variants import Param, Variant, build_variant, params

SVARA32_JOKER = card("7", "♣")


def svara32_rule(cards: Sequence[Card]) -> Score:
    """B-2.1..B-2.6 evaluated directly."""
    ranks = ranks_of(cards)
    if ranks.count("7") == 3:
        return Score.of(34)  # B-2.4: the top hand
    if len(set(ranks)) == 1:
        return Score.of(3 * VALUE[ranks[0]])  # B-2.3
    best = plain_best(cards)
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


SCORER = Scorer("svara32", make_deck("7", joker=False), svara32_rule)
ACTIONS = ("call", "raise", "fold", "look", "join", "skip", "timeout", "blind", "check")


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass
class _Player:
    """One player's money and standing in the hand (mutable: the hand is a state machine)."""

    name: str
    stack: int
    paid: int = 0  # chips in the pot this hand, net of returns
    cards: tuple[Card, ...] | None = None  # this round's cards, None when not dealt in
    playing: bool = False  # dealt into the current round and not folded
    folded: bool = False
    seen: bool = False  # has seen his own cards this round (B-4.3)
    blind: int = 0  # chips of his dark/blind bet this round (B-4.1, B-6.1), 0 if none
    acted: bool = False
    bet: int = 0  # this round's bet in level units
    chips: int = 0  # chips paid in this round


class Svara32Hand(Hand):
    """One hand of svara32 from the antes to the last Svara (B-1 … B-6)."""

    game: ClassVar[str] = "svara32"
    actions: ClassVar[tuple[str, ...]] = ACTIONS

    def __init__(
        self,
        variant: Variant,
        seats: Sequence[Seat],
        dealer: str,
        deals: DealSource,
        dark: str | None = None,
    ):
        super().__init__(variant, seats, dealer, deals, dark)
        self.ante: int = variant["ante"]
        self.order: tuple[str, ...] = tuple(s.name for s in self.seats)
        self._check_start(dealer, dark)
        self.players: dict[str, _Player] = {s.name: _Player(s.name, s.balance) for s in seats}
        self.pot = 0
        self.phase = "betting"
        self.round = 0
        self.level = 0
        self.turn: str | None = None
        self.last_blind: str | None = None  # the blind that stands, unpaid (B-6.3)
        self.blind_stands = False
        self.any_blind = False
        self.tied: list[str] = []
        self.fee = 0
        self.pending: list[str] = []  # Svara entry decisions still awaited (B-5.2)
        self.joined: list[str] = []
        self.winners: list[str] = []
        self.svaras = 0
        self.shown: set[str] = set()
        for p in self.players.values():  # B-1.2: everyone antes before the deal
            self._pay(p, self.ante, "ante")
            self.events.append(Event("ante", p.name, {"amount": self.ante}))
        first = self._after(dealer)
        self._deal(self._clockwise(first))
        if dark is not None:  # B-4.1: one table stake, unseen, worth double
            self._place_blind(self.players[dark], self.ante, "dark")
        if variant["blind_chain"]:
            self.phase = "blind"
            self.turn = first
        else:
            self._start_betting(self._after(dark or dealer))

    # --- construction -------------------------------------------------------------------
    def _check_start(self, dealer: str, dark: str | None) -> None:
        """The table must be dealable: 2..seats players, each able to pay the ante (B-1.2)."""
        n = len(self.order)
        if not 2 <= n <= self.variant["seats"]:
            raise RuleError(f"svara32 needs 2 to {self.variant['seats']} players, got {n}")
        if len(set(self.order)) != n:
            raise RuleError("player names must be distinct")
        if dealer not in self.order:
            raise RuleError(f"the dealer {dealer!r} is not at the table")
        for s in self.seats:
            if s.balance < self.ante:
                raise RuleError(f"{s.name} cannot pay the ante of {self.ante} (has {s.balance})")
        if dark is None:
            return
        if dark != self._after(dealer):
            raise RuleError(f"only {self._after(dealer)}, after the dealer, may play dark (B-4.1)")
        if not self.variant["dark"] or self.variant["blind_chain"]:
            raise RuleError("this table does not allow the dark (B-4.4)")
        balance = next(s.balance for s in self.seats if s.name == dark)
        if balance < 2 * self.ante:
            raise RuleError(f"{dark} cannot pay the ante and the dark bet of {self.ante}")

    @classmethod
    def stake(cls, variant: Variant) -> int:
        """Practice tables sit with the practice chips (B-1.4), others with a full buy-in."""
        if variant["practice"]:
            return int(variant["practice_stack"])
        return int(variant["buy_in_max"]) * int(variant["ante"])

    @classmethod
    def dark_candidate(cls, variant: Variant, seats: Sequence[Seat], dealer: str) -> str | None:
        """B-4.1: the player after the dealer, if the table allows the dark and he can pay it."""
        if not variant["dark"] or variant["blind_chain"]:
            return None
        names = [s.name for s in seats]
        after = seats[(names.index(dealer) + 1) % len(seats)]
        return after.name if after.balance >= 2 * variant["ante"] else None

    # --- seats and money ----------------------------------------------------------------
    def _after(self, name: str) -> str:
        return self.order[(self.order.index(name) + 1) % len(self.order)]

    def _clockwise(self, first: str) -> list[str]:
        i = self.order.index(first)
        return [self.order[(i + k) % len(self.order)] for k in range(len(self.order))]

    def _pay(self, p: _Player, amount: int, kind: str) -> None:
        p.stack -= amount
        p.paid += amount
        self.pot += amount
        self.transfers.append(Transfer(amount, p.name, POT, kind))

    def _receive(self, p: _Player, amount: int, kind: str) -> None:
        p.stack += amount
        self.pot -= amount
        if kind == "return":
            p.paid -= amount
        self.transfers.append(Transfer(amount, POT, p.name, kind))

    def _basis(self, p: _Player) -> int:
        """What counts as the player's bet when he matches (B-6.2: a blind bettor pays in full)."""
        return p.chips if p.blind and self.variant["blind_pays_to_see"] else p.bet

    def _reach(self, p: _Player) -> int:
        """The highest level this player can pay (B-3.3's cap, B-3.4's short stack)."""
        return self._basis(p) + p.stack

    def _chips_at(self, p: _Player, level: int) -> int:
        """Chips the player paid to reach `level` of his basis: the blind part is half price."""
        credit = 0 if self.variant["blind_pays_to_see"] else p.blind
        if level >= 2 * credit:
            return level - credit
        return _ceil_div(level, 2)

    def _live(self) -> list[_Player]:
        return [self.players[n] for n in self.order if self.players[n].playing]

    # --- dealing ------------------------------------------------------------------------
    def _deal(self, dealing_order: list[str]) -> None:
        """New cards for a round (B-1.3, B-5.1), one at a time from the first in order."""
        deal = self.draw(dealing_order)
        for p in self.players.values():
            p.cards = deal.cards.get(p.name)
            p.playing = p.cards is not None
            p.folded = p.seen = p.acted = False
            p.blind = p.bet = p.chips = 0
        self.level = 0
        self.shown = set()
        self.last_blind, self.blind_stands, self.any_blind = None, False, False
        self.events.append(Event("deal", None, {"round": self.round, "players": dealing_order}))

    def _see(self, p: _Player) -> None:
        p.seen = True
        assert p.cards is not None
        self.events.append(Event("cards", p.name, {"cards": [str(c) for c in p.cards]}, (p.name,)))

    def _place_blind(self, p: _Player, chips: int, kind: str) -> None:
        """A bet made unseen: `chips` now, worth double to the others (B-4.2, B-6.1)."""
        self._pay(p, chips, kind)
        p.blind, p.chips, p.bet, p.acted = chips, chips, 2 * chips, True
        self.level = max(self.level, p.bet)
        self.last_blind, self.blind_stands, self.any_blind = p.name, True, True
        self.events.append(Event(kind, p.name, {"amount": chips, "level": p.bet}))

    # --- what is happening --------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.phase == "finished"

    def awaiting(self) -> tuple[str, ...]:
        if self.phase == "svara_entry":
            return tuple(self.pending)
        return (self.turn,) if self.turn is not None else ()

    def legal(self, player: str) -> list[Legal]:
        if player not in self.awaiting():
            return []
        p = self.players[player]
        if self.phase == "svara_entry":
            return [Legal("join", price=self.fee), Legal("skip")]
        if self.phase == "blind":
            return self._legal_blind(p)
        return self._legal_betting(p)

    def _cap(self) -> int:
        """B-3.3: no bet beyond what the player or any other player in the round can pay."""
        return min(self._reach(q) for q in self._live())

    def _legal_blind(self, p: _Player) -> list[Legal]:
        """B-6.1: the first blind is any amount from one stake; each next one doubles it."""
        others = min((self._reach(q) for q in self._live() if q is not p), default=0)
        top = min(p.stack, others // 2)
        out = [Legal("check")]
        if self.last_blind is None and top >= self.ante:
            out.insert(0, Legal.range("blind", self.ante, top, self.ante))
        elif self.last_blind is not None and 2 * self.players[self.last_blind].blind <= top:
            double = 2 * self.players[self.last_blind].blind
            out.insert(0, Legal.fixed("blind", double, double))
        return out

    def _legal_betting(self, p: _Player) -> list[Legal]:
        basis = self._basis(p)
        target = min(self.level, self._reach(p))  # B-3.4: short, he calls what he has
        price = target - basis
        if price == 0 and self.variant["dealer_wins_unbet"]:
            out = [Legal("check")]
        else:
            out = [Legal.fixed("call", target, price)]
        low, high = self.level + self.ante, self._cap()
        if high >= low:
            out.append(Legal.range("raise", low, high, low - basis))
        out.append(Legal("fold"))
        if not p.seen:
            out.append(Legal("look"))
        return out

    # --- acting -------------------------------------------------------------------------
    def _apply(self, action: Action) -> None:
        p = self.players[action.player]
        do, to = action.do, action.to
        if do == "timeout":
            do, legal = self._timeout_action(p)
            self.events.append(Event("timeout", p.name, {"then": do}))
            to = legal.to
        if self.phase == "svara_entry":
            self._decide_entry(p, do == "join")
        elif do == "blind":
            assert to is not None
            self._place_blind(p, to, "blind")
            self._next_blind(p)
        elif do == "check" and self.phase == "blind":
            self.events.append(Event("check", p.name, {"phase": "blind"}))
            self._start_betting(self._after(self.last_blind or self.dealer))
        elif do == "look":
            self._see(p)
            self.events.append(Event("look", p.name))
        elif do == "fold":
            self._fold(p)
        else:
            assert to is not None or do == "check"
            self._bet(p, do, to if to is not None else self._basis(p))

    def _timeout_action(self, p: _Player) -> tuple[str, Legal]:
        """B-1.5: fold when there is something to match, else call (check); Svara: skip."""
        options = {o.do: o for o in self.legal(p.name)}
        if self.phase == "svara_entry":
            return "skip", options["skip"]
        if "check" in options:
            return "check", options["check"]
        call = options["call"]
        return ("call", call) if call.price == 0 else ("fold", options["fold"])

    def _next_blind(self, p: _Player) -> None:
        """B-6.1: the chain passes clockwise; it ends when it comes round to its first blind."""
        nxt = self._after(p.name)
        first_blind = self._after(self.dealer)
        if nxt == first_blind:
            self._start_betting(self._after(p.name))
        else:
            self.turn = nxt

    def _bet(self, p: _Player, do: str, to: int) -> None:
        price = to - self._basis(p)
        if price:
            self._pay(p, price, "bet")
        p.chips += price
        p.bet = max(p.bet, to)
        p.acted = True
        self.level = max(self.level, to)
        if price and not p.blind:
            self.blind_stands = False  # B-6.3: a sighted player paid the blind
        event: dict[str, Any] = {"to": to, "amount": price}
        if p.stack == 0:
            event["all_in"] = True
        self.events.append(Event(do, p.name, event))
        live = self._live()
        if (  # B-3.2: heads-up, a call that leaves both matched ends the betting
            do == "call"
            and self.variant["heads_up_call_ends"]
            and len(live) == 2
            and all(q.stack == 0 or self._basis(q) >= self.level for q in live)
        ):
            self._end_betting()
            return
        self._advance(p.name)

    def _fold(self, p: _Player) -> None:
        """B-3.1: out of the hand; the cards are never shown."""
        p.playing, p.folded, p.acted = False, True, True
        self.events.append(Event("fold", p.name))
        live = self._live()
        if len(live) == 1:
            self._award(live[0], "fold")
            return
        last = self.players[self.last_blind] if self.last_blind else None
        if (  # B-6.3: nobody sighted paid the standing blind; the last blind bettor wins
            self.variant["last_blind_wins"]
            and self.blind_stands
            and last is not None
            and last.playing
            and not p.blind
            and all(q.blind for q in live)
        ):
            self._award(last, "blind")
            return
        self._advance(p.name)

    def _needs_to_act(self, p: _Player) -> bool:
        return p.playing and p.stack > 0 and (not p.acted or self._basis(p) < self.level)

    def _start_betting(self, first: str) -> None:
        """After the antes and any dark/blind bets: the first player after them acts."""
        self.phase = "betting"
        for p in self._live():  # the cards are seen once the dark/blind bets are made
            if not p.blind and not p.seen:
                self._see(p)
        self.turn = None
        for name in self._clockwise(first):
            if self._needs_to_act(self.players[name]):
                self.turn = name
                return
        self._end_betting()

    def _advance(self, after: str) -> None:
        """The next player who still has to act, clockwise, or the end of the betting."""
        for name in self._clockwise(after)[1:]:
            if self._needs_to_act(self.players[name]):
                self.turn = name
                return
        self._end_betting()

    # --- the end of a round: returns, comparison, Svara ---------------------------------
    def _end_betting(self) -> None:
        self.turn = None
        live = self._live()
        self._return_uncalled(live)
        if (  # B-6.4: no blind, nobody bet: the dealer wins
            self.variant["dealer_wins_unbet"]
            and self.round == 0
            and not self.any_blind
            and self.level == 0
            and self.players[self.dealer].playing
        ):
            self._award(self.players[self.dealer], "unbet")
            return
        scores = {p.name: SCORER.score(p.cards or ()) for p in live}
        for p in live:
            self.shown.add(p.name)
            cards = [str(c) for c in p.cards or ()]
            self.events.append(
                Event("show", p.name, {"cards": cards, "points": scores[p.name].points})
            )
        best = best_of(scores)
        if len(best) == 1:
            self._award(self.players[best[0]], "showdown")
        else:
            self._svara(best)

    def _return_uncalled(self, live: list[_Player]) -> None:
        """B-3.4: a short stack is compared for what he has; bets above it go back."""
        floor = min(self._basis(p) for p in live)
        for p in live:
            if self._basis(p) > floor:
                back = p.chips - self._chips_at(p, floor)
                if back > 0:
                    self._receive(p, back, "return")
                    p.chips -= back
                    self.events.append(Event("return", p.name, {"amount": back}))

    def _award(self, winner: _Player, why: str) -> None:
        amount = self.pot
        self._receive(winner, amount, "award")
        self.winners = [winner.name]
        self.events.append(Event("win", winner.name, {"amount": amount, "by": why}))
        self.phase, self.turn = "finished", None

    def _svara(self, tied: list[str]) -> None:
        """B-5.1/B-5.2: the tied replay for the pot; others may buy in for ceil(pot / tied)."""
        self.svaras += 1
        self.tied = tied
        self.fee = _ceil_div(self.pot, len(tied))
        self.joined = []
        self.pending = [
            n for n in self.order if n not in tied and self.players[n].stack >= self.fee
        ]
        self.events.append(Event("svara", None, {"players": tied, "fee": self.fee}))
        if self.pending:
            self.phase = "svara_entry"
        else:
            self._start_svara()

    def _decide_entry(self, p: _Player, join: bool) -> None:
        """Decisions are simultaneous: each is private until everyone has decided."""
        self.pending.remove(p.name)
        if join:
            self.joined.append(p.name)
        self.events.append(Event("join" if join else "skip", p.name, {}, (p.name,)))
        if not self.pending:
            self._start_svara()

    def _start_svara(self) -> None:
        """B-5.4: the first tied player after the hand's dealer deals first and acts first."""
        joined = [n for n in self.order if n in self.joined]
        for name in joined:
            self._pay(self.players[name], self.fee, "fee")
        self.events.append(Event("svara_entry", None, {"joined": joined, "fee": self.fee}))
        first = next(n for n in self._clockwise(self._after(self.dealer)) if n in self.tied)
        players = set(self.tied) | set(joined)
        self.round += 1
        self._deal([n for n in self._clockwise(first) if n in players])  # B-4.4: no dark
        self._start_betting(first)

    # --- what each viewer may know ------------------------------------------------------
    def _cards_for(self, p: _Player, viewer: str | None) -> list[str] | None:
        if p.cards is None:
            return None
        if p.name in self.shown or (viewer == p.name and p.seen):
            return [str(c) for c in p.cards]
        return None

    def _state(self, p: _Player) -> str:
        if p.folded:
            return "folded"
        if p.playing:
            return "won" if p.name in self.winners else "playing"
        return "out"

    def view(self, viewer: str | None) -> dict[str, Any]:
        betting = self.phase in ("blind", "betting")
        out: dict[str, Any] = {
            "game": self.game,
            "variant": self.variant.name,
            "phase": self.phase,
            "dealer": self.dealer,
            "ante": self.ante,
            "pot": self.pot,
            "level": self.level if betting else None,
            "round": self.round,
            "turn": self.turn,
            "players": [
                {
                    "name": p.name,
                    "balance": p.stack,
                    "state": self._state(p),
                    "paid": p.paid,
                    "bet": p.bet,
                    "cards": self._cards_for(p, viewer),
                    "looked": p.seen,
                    "dark": p.blind > 0,
                    "all_in": p.playing and p.stack == 0,
                }
                for p in (self.players[n] for n in self.order)
            ],
            "awaiting": list(self.awaiting()),
            "legal": [o.as_json() for o in self.legal(viewer)] if viewer else [],
            "events": self.public_events(viewer),
        }
        if self.phase == "svara_entry":
            out["svara"] = {"players": self.tied, "fee": self.fee}
        if self.finished:
            r = self.result()
            out["result"] = {"balances": r.balances, "winners": r.winners, "svaras": r.svaras}
        return out

    def result(self) -> HandResult:
        balances = {n: self.players[n].stack for n in self.order}
        return HandResult(balances, list(self.winners), 0, self.svaras)

    @property
    def next_dealer(self) -> str | None:
        return self._after(self.dealer) if self.finished else None


# --- the odds bot (policies/odds.py) -----------------------------------------------------


def odds_play(
    bot: OddsBot, player: str, legal: Sequence[Legal], view: View, reading: Reading
) -> Action:
    """The odds bot's play in svara32 (policies/odds.py `OddsPolicy`)."""
    if view["phase"] == "svara_entry":
        svara = view["svara"]
        return bot.entry(player, legal, view["pot"], svara["fee"], len(svara["players"]))
    if view["phase"] == "blind":  # B-6.1: a blind now and then, else pass it up
        blind = next((o for o in legal if o.do == "blind"), None)
        if blind is not None and bot.rng.random() < DARK:
            return Action(player, "blind", blind.min_to if blind.ranged else blind.to)
        return Action(player, "check")
    if any(o.do == "look" for o in legal):  # B-4.3: seeing one's hand keeps the turn
        return Action(player, "look")
    return bot.betting(player, legal, view, bot.odds(SCORER, reading))


# --- the game ---------------------------------------------------------------------------

PARAMS = params(
    Param("seats", int, 6, "seats at the table (B-1.2)", 2, 6),
    Param("ante", int, 10, "the table stake (B-1.2)", 1, 1_000_000),
    Param("buy_in_min", int, 20, "smallest stack, in antes", 1, 10_000),
    Param("buy_in_max", int, 100, "largest stack, in antes", 1, 10_000),
    Param("dark", bool, True, "the dark before the deal is allowed (B-4.1, B-4.4)"),
    Param("turn_seconds", int, 30, "time for one decision (B-1.5)", 5, 600),
    Param("svara_seconds", int, 30, "time to decide on a Svara entry (B-5.2)", 5, 600),
    Param("practice", bool, False, "practice chips, not the balance (B-1.4)"),
    Param("practice_stack", int, 500, "practice chips each (B-1.4)", 1, 1_000_000),
    Param("heads_up_call_ends", bool, True, "heads-up, a call ends the betting (B-3.2)"),
    Param("blind_chain", bool, False, "the traditional blind chain (B-6.1)"),
    Param("blind_pays_to_see", bool, False, "a blind bettor pays to see (B-6.2)"),
    Param("last_blind_wins", bool, False, "an unpaid blind wins the pot (B-6.3)"),
    Param("dealer_wins_unbet", bool, False, "no bet at all: the dealer wins (B-6.4)"),
    Param("bots", bool, False, "a bot sits at the table"),
)

GAME = Game(
    name="svara32",
    title="Свара 32 · болгарская",
    hand=Svara32Hand,
    scorer=SCORER,
    params=PARAMS,
    presets=(
        build_variant(
            "svara32", "svara32", "Bulgarian Svara, 32 cards, 7♣ joker (B-1)", PARAMS, {}
        ),
        build_variant(
            "svara32-traditional",
            "svara32",
            "svara32 with the blind chain (B-6)",
            PARAMS,
            {
                "blind_chain": True,
                "blind_pays_to_see": True,
                "last_blind_wins": True,
                "dealer_wins_unbet": True,
                "heads_up_call_ends": False,
                "dark": False,
            },
        ),
        build_variant(
            "svara32-practice",
            "svara32",
            "one player against the bot, 500 practice chips each, ante 10 (B-1.4)",
            PARAMS,
            {"seats": 2, "ante": 10, "practice": True, "bots": True},
        ),
    ),
    manners=Manners(
        stacks=True,
        gather_param=None,
        gather_after_hand=False,
        stand_idle=True,
        stand_offline=False,
        chat_in_hand=True,
        phase_seconds={"svara_entry": "svara_seconds"},
    ),
    odds_policy=odds_play,
    demo_tables=(("Свара-32", "svara32", {}), ("Свара-32 по-старому", "svara32-traditional", {})),
)
