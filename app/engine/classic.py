"""The `classic` hand (docs/rules/classic.md, C-…): one explicit state machine.

The hand is built from the seats, the dealer, the dark choice and a deal source, and then
fed `Action`s. Every action is checked against `legal()` before anything changes (and a
deal that cannot be drawn is undone by `Hand.act`), so a refused action leaves the state as
it was. The phases are:

- `betting`: one player holds the turn (C-2.4 … C-4.19);
- `vote`: a «Варить»/«Делить» proposal waits for the other players (C-5.1 … C-5.3);
- `svara_entry`: the eligible players decide at once whether to buy in (C-7.3);
- `dark_decision`: the original dark player chooses to go on dark in a Svara (C-7.5);
- `finished`.

The closing word (C-2.5, C-2.6, C-4.10a) is `closer`: with a bet open, the turn of the
player holding it is the closing turn. A raise makes its author the holder; «Дал дальше»
hands it to the next active player, who is then on his closing turn at once.

Why one module of ~950 lines: a hand's rules are one state machine whose phases share the
turn order, the closing word and the pot; split into files they would import each other's
private state. What is not the state machine already lives elsewhere: scoring (scoring.py),
the deck and shuffles (cards.py), the common contract (hand.py), the policies (policies/).
The module ends with the odds bot's reading of this game and the game's `Game` record.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Sequence
from functools import cache
from math import ceil
from typing import Any

from .cards import Card, make_deck, parse_cards
from .game import Game, Manners, Words
from .hand import (
    DECLARED,
    POT,
    Action,
    Deal,
    DealSource,
    Event,
    Hand,
    HandResult,
    Legal,
    RuleError,
    Seat,
    Transfer,
)
from .policies.base import Bot, View, concrete
from .policies.odds import (
    BIG_RAISE,
    BLUFF,
    DARK,
    DRAG,
    LOOK,
    RAISE,
    OddsBot,
    Reading,
    against_one,
    to_of,
)
from .scoring import ABSOLUTE, VALUE, Score, Scorer, plain_best, ranks_of
from .variants import Param, Variant, build_variant, params

BETTING, VOTE, SVARA_ENTRY, DARK_DECISION, FINISHED = (
    "betting",
    "vote",
    "svara_entry",
    "dark_decision",
    "finished",
)
ACTIVE, FOLDED, OUT, EXCLUDED = "active", "folded", "out", "excluded"

DOS = (
    "pass", "bet", "fold", "open", "lock", "look", "give_on", "propose", "agree", "refuse",
    "join", "skip", "dark_on", "dark_off", "timeout", "withdraw",
)  # fmt: skip

FOLD = Legal("fold")
PASS = Legal("pass")
OPEN = Legal("open")
AGREE = Legal("agree")
REFUSE = Legal("refuse")
SKIP = Legal("skip")
DARK_OFF = Legal("dark_off")
PROPOSALS = (Legal("propose", deal="cook"), Legal("propose", deal="split"))


def classic_rule(cards: Sequence[Card]) -> Score:
    """C-3.1..C-3.8 evaluated directly."""
    jokers = [c for c in cards if c.is_joker]
    others = [c for c in cards if not c.is_joker]
    ranks = ranks_of(others)
    if ranks.count("6") == 3 or (jokers and ranks.count("6") == 2):
        return ABSOLUTE  # C-3.7
    if jokers:  # C-3.6
        a, b = others
        if a.suit == b.suit or a.rank == b.rank:
            return Score.of(11 + VALUE[a.rank] + VALUE[b.rank])
        return Score.of(11 + max(VALUE[a.rank], VALUE[b.rank]))
    best = plain_best(others)  # C-3.2, C-3.5
    if len(set(ranks)) == 1:
        best = max(best, 3 * VALUE[ranks[0]])  # C-3.3
    if ranks.count("A") == 2:
        best = max(best, 22)  # C-3.4
    return Score.of(best)


SCORER = Scorer("classic", make_deck("6", joker=True), classic_rule)
_SCORE = SCORER.table


def _score(cards: Sequence[Card]) -> Score:
    a, b, c = cards
    return _SCORE[a.bit | b.bit | c.bit]


class ClassicHand(Hand):
    """A `classic` hand from the ante to the award, through any number of Svaras."""

    game = "classic"
    actions = DOS

    def __init__(
        self,
        variant: Variant,
        seats: Sequence[Seat],
        dealer: str,
        deals: DealSource,
        dark: str | None = None,
    ):
        super().__init__(variant, seats, dealer, deals, dark)
        rules = variant.rules
        self.names: tuple[str, ...] = tuple(s.name for s in self.seats)
        self.n = len(self.names)
        if dealer not in self.names:
            raise RuleError(f"the dealer {dealer} is not seated at the table")
        if dark is not None and dark not in self.names:
            raise RuleError(f"the dark player {dark} is not seated at the table")
        self.seat_of = {name: i for i, name in enumerate(self.names)}
        self.ante: int = rules["ante"]
        self.levels: tuple[int, ...] = tuple(sorted(set(rules["levels"])))
        self.dark_fee: int = rules["dark_fee"]
        self.look_fee: int = rules["look_fee"]
        self.balance = {s.name: s.balance for s in self.seats}
        self.paid = dict.fromkeys(self.names, 0)
        self.pot = 0
        # C-1.6, C-1.8: a seat with less than the ante does not enter the hand at all.
        self.participants = tuple(n for n in self.names if self.balance[n] >= self.ante)
        if len(self.participants) < 2:
            raise RuleError("a hand needs at least two participants with the ante (C-1.1, C-1.8)")
        self.state = {n: (OUT if n in self.participants else EXCLUDED) for n in self.names}
        # C-2.3: a dealer who is not a participant passes the deal clockwise.
        self.button = dealer if dealer in self.participants else self._next_of(dealer)
        self.phase = BETTING
        self.round = 0
        self.winners: list[str] = []
        self._next_dealer: str | None = None
        self.timed_out: set[str] = set()
        # The deal in play (reset by `_start_deal`).
        self.dealt: tuple[str, ...] = ()
        self.cards: dict[str, tuple[Card, ...]] = {}
        self.active: set[str] = set()
        self.level: int | None = None
        self.closer: str | None = None
        self.turn: str | None = None
        self.answered: set[str] = set()
        self.anchor = self.button
        self.dark_now: str | None = None
        self.dark_waiting = False
        self.privilege = False
        self.links: dict[str, str] = {}
        self.seen: dict[str, frozenset[str]] = {}
        self.shown: set[str] = set()
        self.timeout_passes = True
        self.vote_spent = False
        self.proposer: str | None = None
        self.proposal: str | None = None
        self.voters: set[str] = set()
        # A Svara being formed (C-7.2, C-7.3).
        self.free: frozenset[str] = frozenset()
        self.fee = 0
        self.pending: set[str] = set()
        self.joined: set[str] = set()
        self.entrants: tuple[str, ...] = ()
        self._legal_cache: tuple[str | None, list[Legal]] = (None, [])

        self.dark_line = self._dark_activation(dark)
        for p in self.participants:  # C-2.1
            self._pay(p, self.ante, "ante")
        self._emit("ante", None, amount=self.ante, players=list(self.participants))
        if self.dark_line is not None:
            self._pay(self.dark_line, self.dark_fee, "dark")
            self._emit("dark", self.dark_line, amount=self.dark_fee)
        self._start_deal(self.participants, self.dark_line)

    # --- starting a hand (hooks of the Hand base) ---------------------------------------
    @classmethod
    def dark_candidate(cls, variant: Variant, seats: Sequence[Seat], dealer: str) -> str | None:
        """C-1.5: the nearest participant clockwise from the dealer (C-2.3: from the next
        participant when the dealer cannot play), if he can pay for the dark."""
        if not variant["dark"]:
            return None
        n = len(seats)
        i = next(k for k, s in enumerate(seats) if s.name == dealer)
        # The participants clockwise from the dealer's seat: the first deals, the second
        # is the candidate.
        playing = [s for k in range(n) if cls.playable(variant, (s := seats[(i + k) % n]).balance)]
        if len(playing) < 2:
            return None
        candidate = playing[1]
        return (
            candidate.name if candidate.balance >= variant["ante"] + variant["dark_fee"] else None
        )

    def _dark_activation(self, dark: str | None) -> str | None:
        """C-1.6: the dark is active only with ≥ 4 participants, an unchanged dealer and
        candidate, and 25 ₽; otherwise it is an ordinary «Готов» and costs nothing."""
        if dark is None:
            return None
        if not self.variant["dark"]:
            reason = "the table does not allow the dark"
        elif dark not in self.participants:
            reason = f"{dark} has less than the ante and does not enter the hand"
        elif len(self.participants) < self.variant["dark_min_players"]:
            reason = f"fewer than {self.variant['dark_min_players']} participants"
        elif self._next_of(self.button) != dark:
            reason = f"{dark} is not the nearest participant after the dealer {self.button}"
        elif self.balance[dark] < self.ante + self.dark_fee:
            reason = f"balance below {self.ante + self.dark_fee}"
        else:
            return dark
        self._emit("dark_downgraded", dark, reason=reason)
        return None

    # --- seats --------------------------------------------------------------------------
    def _seek(self, name: str, step: int, pool: Collection[str], start: int = 1) -> str:
        """The nearest member of `pool` from `name`'s seat, going clockwise (`step` 1) or
        counter-clockwise (-1), `start` seats away at the nearest."""
        names, n = self.names, self.n
        i = self.seat_of[name]
        for k in range(start, n + 1):
            q = names[(i + step * k) % n]
            if q in pool:
                return q
        raise RuleError("nobody left to take the turn")

    def _next_of(self, name: str) -> str:
        """The nearest participant clockwise after `name` (C-1.5, C-2.3)."""
        return self._seek(name, 1, self.participants)

    def _next_active(self, name: str) -> str:
        return self._seek(name, 1, self.active)

    def _prev_active(self, name: str) -> str:
        return self._seek(name, -1, self.active)

    def _last_word(self) -> str:
        """C-2.7: with no bet, the last word is the dealer's, or in a Svara without him the
        last active player in turn order (the nearest one counter-clockwise from the dealer)."""
        return self._seek(self.anchor, -1, self.active, start=0)

    def _in_seat_order(self, players: Iterable[str]) -> tuple[str, ...]:
        return tuple(sorted(players, key=self.seat_of.__getitem__))

    def _from_button(self, players: Iterable[str]) -> tuple[str, ...]:
        """`players` clockwise starting after the dealer: the dealing order (C-2.4)."""
        base = self.seat_of[self.button]
        return tuple(sorted(players, key=lambda p: (self.seat_of[p] - base - 1) % self.n))

    # --- money and events ---------------------------------------------------------------
    def _pay(self, player: str, amount: int, kind: str) -> None:
        self.balance[player] -= amount
        self.paid[player] += amount
        self.pot += amount
        self.transfers.append(Transfer(amount, player, POT, kind))

    def _award(self, player: str, amount: int, kind: str) -> None:
        self.balance[player] += amount
        self.pot -= amount
        self.transfers.append(Transfer(amount, POT, player, kind))

    def _emit(self, kind: str, player: str | None, **data: Any) -> None:
        self.events.append(Event(kind, player, data))

    # --- what is happening --------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.phase == FINISHED

    @property
    def next_dealer(self) -> str | None:
        return self._next_dealer

    def awaiting(self) -> tuple[str, ...]:
        if self.phase == BETTING:
            return (self.turn,) if self.turn is not None else ()
        if self.phase == VOTE:
            return self._in_seat_order(self.voters)
        if self.phase == SVARA_ENTRY:
            return self._in_seat_order(self.pending)
        if self.phase == DARK_DECISION:
            return (self.dark_line,) if self.dark_line is not None else ()
        return ()

    def timer_owners(self) -> tuple[str, ...]:
        """C-5.3: the vote has no timer of its own; its time is the proposer's turn."""
        if self.phase == VOTE and self.proposer is not None:
            return (self.proposer,)
        return self.awaiting()

    def legal(self, player: str | None) -> list[Legal]:
        cached_for, cached = self._legal_cache
        if cached_for == player and player is not None:
            return cached
        out = self._legal(player) if player is not None else []
        self._legal_cache = (player, out)
        return out

    def _legal(self, player: str) -> list[Legal]:
        phase = self.phase
        if phase == BETTING:
            return self._betting_legal(player) if player == self.turn else []
        if phase == VOTE:
            if player in self.voters:
                return [AGREE, REFUSE]
            if player == self.proposer:  # C-5.3: an ordinary action cancels the proposal
                return self._betting_legal(player)
            return []
        if phase == SVARA_ENTRY:
            return [Legal("join", price=self.fee), SKIP] if player in self.pending else []
        if phase == DARK_DECISION and player == self.dark_line:
            return [Legal("dark_on", price=self.dark_fee), DARK_OFF]
        return []

    def _betting_legal(self, p: str) -> list[Legal]:
        level, balance, levels = self.level, self.balance[p], self.levels
        if level is None:  # C-4.4, C-4.5, C-2.7
            last = p == self._last_word()
            out = [OPEN if last else PASS]
            out += [Legal.fixed("bet", n, n) for n in levels if n <= balance]
            if not last:
                out.append(FOLD)
            return out
        out = []
        can_pay = balance >= level
        look = self._look_legal(p, balance)
        if self.dark_waiting and p == self.dark_now:  # C-2.5: pay 30, look for 15, or fold
            if can_pay:
                out.append(Legal.fixed("bet", level, level))
            if look is not None:
                out.append(look)
            out.append(FOLD)
            return out
        if p == self.closer:  # C-4.10a: the closing turn
            if can_pay:
                if len(self.active) == 2:
                    out.append(Legal("lock", price=level))
                out.append(Legal("give_on", price=level))
                out += [Legal.fixed("give_on", n, level) for n in levels if n > level]
            if look is not None:
                out.append(look)
            out.append(FOLD)
            if len(self.active) <= 3 and not self.vote_spent and self.phase == BETTING:
                out += PROPOSALS  # C-5.1
            return out
        if can_pay:
            out.append(Legal.fixed("bet", level, level))
        out += [Legal.fixed("bet", n, n) for n in levels if level < n <= balance]  # C-4.5
        if look is not None:
            out.append(look)
        out.append(FOLD)
        return out

    def _look_legal(self, p: str, balance: int) -> Legal | None:
        """C-4.11, C-4.16, C-4.17: ≥ 3 active, the previous active player has just paid the
        level, nobody but the dark player looks before his first decision."""
        if len(self.active) < 3 or (self.dark_waiting and p != self.dark_now):
            return None
        if self._prev_active(p) not in self.answered:
            return None
        price = self.look_fee if (self.privilege and p == self.dark_now) else self.level
        return Legal("look", price=price) if price is not None and balance >= price else None

    # --- acting -------------------------------------------------------------------------
    def declarable(self, player: str) -> frozenset[str]:
        """C-5.3: the proposer's disconnect withdraws his proposal, besides the timeout."""
        out = super().declarable(player)
        return out | {"withdraw"} if self.phase == VOTE and player == self.proposer else out

    def disconnect_action(self, player: str) -> Action | None:
        """C-5.3: a disconnect cancels a «Варить»/«Делить» proposal: a voter refuses (which
        ends the vote, C-5.2), the proposer withdraws it; otherwise his timer runs on."""
        if self.phase != VOTE:
            return None
        if player in self.voters:
            return Action(player, "refuse")
        return Action(player, "withdraw") if player == self.proposer else None

    def _why_not(self, action: Action) -> str | None:
        """The rule behind a refusal on the player's own turn, for the common cases."""
        p, do, level = action.player, action.do, self.level
        if do == "withdraw":
            if self.phase != VOTE:
                return f"{p} has no proposal to withdraw: no vote is open (C-5.3)"
            return f"only the proposer {self.proposer} withdraws the proposal (C-5.3)"
        closing = level is not None and p == self.closer
        if self.phase != BETTING or (self.dark_waiting and p == self.dark_now):
            return None
        if do == "look":
            if len(self.active) < 3:
                return "a look needs three active players, C-4.11"
            if self.dark_waiting:
                return "nobody looks before the dark player's first decision, C-4.16"
            if level is None:
                return "no bet is open, C-4.11"
            return f"{self._prev_active(p)} has not paid the level {level}, C-4.11"
        if do == "pass":
            return (
                f"a bet of {level} is open, C-4.4"
                if level
                else "the last word opens or bets, C-2.7"
            )
        if do == "open":
            return "only the last word with no bet opens, C-2.7"
        if do in ("lock", "give_on", "propose") and not closing:
            return "only on the closing turn, C-4.10a"
        if do == "lock":
            return "only with two active players, C-4.8"
        if do == "propose":
            return "one proposal per turn, C-5.2" if self.vote_spent else "2 or 3 players, C-5.1"
        if do == "bet" and closing:
            return "on the closing turn a raise is give_on N, C-4.5"
        if do == "bet" and action.to not in self.levels:
            return f"the levels are {', '.join(map(str, self.levels))}, C-4.2"
        if do == "bet" and action.to is not None and action.to > self.balance[p]:
            return f"{p} has {self.balance[p]}, C-4.12"
        return None

    def _apply(self, action: Action) -> None:
        p, do = action.player, action.do
        self._legal_cache = (None, [])
        if self.phase == VOTE and p == self.proposer and do not in DECLARED:
            self._end_vote("cancelled", p)  # C-5.3
        if do == "timeout":
            self._timeout(p)
        elif do == "withdraw":  # C-5.3, C-5.2: the same turn goes on, with no new proposal
            self._end_vote("disconnect", p)
            self.vote_spent = True
        elif do == "pass":
            self.timeout_passes = False
            self._pass(p, timeout=False)
        elif do == "bet":
            assert action.to is not None
            self._bet(p, action.to)
        elif do == "fold":
            self._fold(p, None)
        elif do == "look":
            self._look(p)
        elif do == "give_on":
            self._give_on(p, action.to)
        elif do == "lock":  # C-4.8
            self._pay(p, self._level(), "bet")
            self._emit("lock", p, amount=self._level())
            self._showdown()
        elif do == "open":  # C-4.7
            self._emit("open", p, by="player")
            self._showdown()
        elif do == "propose":
            self._propose(p, action.deal or "")
        elif do == "agree":
            self._agree(p)
        elif do == "refuse":  # C-5.2: one refusal ends the vote; the same turn goes on
            self._emit("refuse", p)
            self._end_vote(None, None)
            self.vote_spent = True
        elif do in ("join", "skip"):
            self._entry(p, do == "join", timeout=False)
        else:
            self._dark_choice(do == "dark_on", timeout=False)
        self._legal_cache = (None, [])

    def _level(self) -> int:
        assert self.level is not None
        return self.level

    # --- the turn -----------------------------------------------------------------------
    def _move_turn(self, q: str) -> None:
        """Give `q` the turn; without the money for the level he folds at once (C-4.12)."""
        self.turn = q
        self.vote_spent = False
        level = self.level
        if (
            level is not None
            and self.balance[q] < level
            and not any(option.do == "look" for option in self._betting_legal(q))
        ):
            self._fold(q, "money")

    def _pass(self, p: str, timeout: bool) -> None:
        self._emit("pass", p, **({"timeout": True} if timeout else {}))
        self._move_turn(self._next_active(p))

    def _bet(self, p: str, to: int) -> None:
        """«Дал N» (C-4.5): opens, answers or raises, paying N in full (C-4.3)."""
        raised = self.level is None or to > self.level
        self._pay(p, to, "bet")
        if raised:
            self.level, self.closer, self.answered = to, p, {p}
        else:
            self.answered.add(p)
        self._emit("bet", p, to=to, amount=to, **({"raise": True} if raised else {}))
        if self.dark_waiting and p == self.dark_now:
            self._dark_decided(p)
        self._move_turn(self._next_active(p))

    def _dark_decided(self, p: str) -> None:
        """C-2.5, C-4.18: after the dark player's first decision the next active player holds
        the closing word (it never comes back to him as the author of the 30)."""
        self.dark_waiting = False
        if self.closer is None:
            self.closer = self._next_active(p)

    def _give_on(self, p: str, to: int | None) -> None:
        level = self._level()
        self._pay(p, level, "bet")
        if to is None:  # C-4.9: the same closing decision goes to the next active player
            self.answered.add(p)
            self.closer = self._next_active(p)
            self._emit("give_on", p, amount=level)
            self._move_turn(self.closer)
        else:  # C-4.10: pays L, opens N; the closing word stays his
            self.level, self.answered = to, set()
            self._emit("give_on", p, to=to, amount=level)
            self._move_turn(self._next_active(p))

    def _fold(self, p: str, reason: str | None) -> None:
        """«Упал» (C-4.6), also by timeout or want of money (C-4.12)."""
        if self.dark_waiting and p == self.dark_now:
            self._dark_decided(p)
        after = self._next_active(p)
        self.active.discard(p)
        self.state[p] = FOLDED
        self._emit("fold", p, **({"reason": reason} if reason else {}))
        if len(self.active) == 1:  # C-6.2: the last player wins at once, cards unseen
            self._award_pot(after)
            return
        if p == self.closer:  # C-2.6a
            self.closer = after
        if self.turn == p:
            self._move_turn(after)

    def _look(self, p: str) -> None:
        """«Смотреться» (C-4.11, C-4.14, C-4.17)."""
        target = self._prev_active(p)
        privileged = self.privilege and p == self.dark_now
        price = self.look_fee if privileged else self._level()
        self._pay(p, price, "look")
        self.answered.add(p)
        if privileged:
            self.privilege = False
        if self.dark_waiting and p == self.dark_now:
            self.dark_waiting = False
        mine, theirs = _score(self.cards[p]).key, _score(self.cards[target]).key
        tie = mine == theirs
        loser = p if mine < theirs else target
        survivor = target if loser == p else p
        self.seen[p] = self.seen.get(p, frozenset()) | {target}
        self.seen[target] = self.seen.get(target, frozenset()) | {p}
        self._emit(
            "look",
            p,
            target=target,
            loser=loser,
            amount=price,
            **({"tie": True} if tie else {}),
            **({"privileged": True} if privileged else {}),
        )
        cards = {q: [str(c) for c in self.cards[q]] for q in (p, target)}
        self.events.append(Event("look_cards", p, {"cards": cards}, (p, target)))  # the two only
        if tie:  # C-4.14: the target is linked to the survivor; chains merge
            for x, rep in self.links.items():
                if rep == target:
                    self.links[x] = survivor
            self.links[target] = survivor
        self.active.discard(loser)
        self.state[loser] = FOLDED
        if self.closer in (p, None):
            self.closer = self._next_active(p)
        elif self.closer == loser:
            self.closer = self._next_active(loser)
        self._move_turn(self._next_active(p))

    def _timeout(self, p: str) -> None:
        """C-4.12, C-4.13, C-2.7, C-5.3, C-7.3, C-7.5: the automatic action of the phase."""
        phase = self.phase
        # C-1.7: whose timer ran out (during a vote, the proposer's turn time).
        self.timed_out.add(self.proposer if phase == VOTE and self.proposer else p)
        if phase == SVARA_ENTRY:
            self._entry(p, False, timeout=True)
        elif phase == DARK_DECISION:
            self._dark_choice(False, timeout=True)
        elif phase == VOTE:  # the vote ran out with the proposer's turn: he folds
            proposer = self.proposer
            assert proposer is not None
            self._end_vote("timeout", None)
            self._fold(proposer, "timeout")
        elif self.level is not None:
            self._fold(p, "timeout")
        elif p == self._last_word():
            self._emit("open", p, by="table" if self.timeout_passes else "timeout")
            self._showdown()
        else:
            self._pass(p, timeout=True)

    # --- deals for two and three (C-5) --------------------------------------------------
    def _propose(self, p: str, deal: str) -> None:
        self.phase = VOTE
        self.proposer, self.proposal = p, deal
        self.voters = self.active - {p}
        self._emit("propose", p, deal=deal)

    def _end_vote(self, why: str | None, by: str | None) -> None:
        if why is not None:
            self._emit("vote_cancelled", by, deal=self.proposal, why=why)
        self.phase = BETTING
        self.proposer = self.proposal = None
        self.voters = set()

    def _agree(self, p: str) -> None:
        self._emit("agree", p)
        self.voters.discard(p)
        if self.voters:
            return
        deal = self.proposal
        self._end_vote(None, None)
        players = self._from_button(self.active)
        if deal == "split":  # C-5.5
            share, rest = divmod(self.pot, len(players))
            self._emit("split", None, players=list(players))
            for i, q in enumerate(players):
                self._award(q, share + (1 if i < rest else 0), "split")
            self._finish(list(players), players[0])
        else:  # C-5.4: the cooks' cards go in unseen and the pot carries into a Svara
            self._emit("cook", None, players=list(players))
            self._svara(self._in_seat_order(self.active))

    # --- showdown and Svara -------------------------------------------------------------
    def _showdown(self) -> None:
        """C-6.1, C-7.1: the single best hand takes the pot; a tie goes to a Svara."""
        players = self._in_seat_order(self.active)
        self.shown.update(players)
        keys = {p: _score(self.cards[p]).key for p in players}
        self._emit(
            "showdown",
            None,
            hands={
                p: {
                    "cards": [str(c) for c in self.cards[p]],
                    "points": _score(self.cards[p]).points,
                }
                for p in players
            },
        )
        top = max(keys.values())
        best = [p for p in players if keys[p] == top]
        if len(best) == 1:
            self._award_pot(best[0])
        else:
            self._svara(tuple(best))

    def _award_pot(self, winner: str) -> None:
        amount = self.pot
        self._award(winner, amount, "award")
        self._emit("award", winner, amount=amount)
        self._finish([winner], winner)  # C-6.3

    def _finish(self, winners: list[str], next_dealer: str) -> None:
        self.phase = FINISHED
        self.turn = self.closer = None
        self.winners = winners
        self._next_dealer = next_dealer

    def _svara(self, tied: tuple[str, ...]) -> None:
        """C-7.2, C-7.3, C-7.6: the tied (or cooking) players and those linked to them enter
        free; the other players of the deal just finished may buy in at ceil(pot / tied)."""
        free = frozenset(tied) | {x for x, rep in self.links.items() if rep in tied}
        fee = ceil(self.pot / len(tied))
        buyers = [p for p in self.dealt if p not in free and self.balance[p] >= fee]
        self.round += 1
        self.phase = SVARA_ENTRY
        self.turn = self.closer = None
        self.free, self.fee = free, fee
        self.pending, self.joined = set(buyers), set()
        self._emit(
            "svara",
            None,
            round=self.round,
            tied=list(tied),
            free=list(self._in_seat_order(free)),
            fee=fee,
            buyers=buyers,
        )
        if not buyers:
            self._entries_done()

    def _entry(self, p: str, join: bool, timeout: bool) -> None:
        """C-7.3: every eligible player decides at the same time; a timeout is a skip."""
        if join:
            self._pay(p, self.fee, "fee")
            self.joined.add(p)
            self._emit("join", p, amount=self.fee)
        else:
            self._emit("skip", p, **({"timeout": True} if timeout else {}))
        self.pending.discard(p)
        if not self.pending:
            self._entries_done()

    def _entries_done(self) -> None:
        players = self._in_seat_order(self.free | self.joined)
        dark = self.dark_line
        if dark is not None and dark in players and self.balance[dark] >= self.dark_fee:
            self.phase = DARK_DECISION  # C-7.5
            self.entrants = players
            return
        if dark is not None:
            self._emit("dark_closed", dark)
            self.dark_line = None
        self._start_deal(players, None)

    def _dark_choice(self, on: bool, timeout: bool) -> None:
        """C-7.5: go on dark for 15 ₽, or close the dark line for good."""
        dark = self.dark_line
        assert dark is not None
        if on:
            self._pay(dark, self.dark_fee, "dark")
            self._emit("dark_on", dark, amount=self.dark_fee)
        else:
            self._emit("dark_off", dark, **({"timeout": True} if timeout else {}))
            self.dark_line = None
        self._start_deal(self.entrants, dark if on else None)

    def _start_deal(self, players: Sequence[str], dark: str | None) -> None:
        """Deal to `players`; with a dark, the level opens at 30 and the first to answer is
        the next after the dark player (C-2.5, C-4.2, C-7.5), else the next after the dealer
        with no bet open (C-2.4, C-7.4, C-7.7)."""
        deal: Deal = self.draw(self._from_button(players))
        self.cards = dict(deal.cards)
        self.dealt = tuple(players)
        self.active = set(players)
        for p in self.participants:
            self.state[p] = ACTIVE if p in self.active else OUT
        self.phase = BETTING
        self.links, self.seen, self.shown = {}, {}, set()
        self.answered = set()
        self.timeout_passes = True
        self.closer = None
        self.dark_now = dark
        self.dark_waiting = self.privilege = dark is not None
        self.anchor = dark if dark is not None else self.button
        self.level = self.levels[-1] if dark is not None else None
        self._emit("deal", None, round=self.round, players=list(self._from_button(players)))
        self._move_turn(self._next_active(self.anchor))

    # --- what each viewer sees ----------------------------------------------------------
    def _cards_for(self, owner: str, viewer: str | None) -> list[str] | None:
        """C-4.11, C-4.19, C-6.1, C-6.2: cards a viewer may see, else None."""
        cards = self.cards.get(owner)
        if cards is None or owner not in self.dealt:
            return None
        visible = (
            owner in self.shown
            or (viewer == owner and not (self.dark_waiting and owner == self.dark_now))
            or (viewer is not None and viewer in self.seen.get(owner, ()))
        )
        return [str(c) for c in cards] if visible else None

    def view(self, viewer: str | None) -> dict[str, Any]:
        players: list[dict[str, Any]] = [
            {
                "name": p,
                "balance": self.balance[p],
                "state": self.state[p],
                "paid": self.paid[p],
                "cards": self._cards_for(p, viewer),
                "dark": p == self.dark_now,
                "linked_to": self.links.get(p),
            }
            for p in self.names
        ]
        if viewer in self.seat_of:  # C-3.9: the count of one's own hand, for him only
            mine = players[self.seat_of[viewer]]
            if mine["cards"] is not None:
                score = _score(self.cards[viewer])
                mine["points"], mine["absolute"] = score.points, score.absolute
        closing = None
        if self.phase in (BETTING, VOTE):
            closing = self.closer if self.level is not None else self._last_word()
        out: dict[str, Any] = {
            "game": self.game,
            "variant": self.variant.name,
            "phase": self.phase,
            "dealer": self.button,
            "pot": self.pot,
            "level": self.level if self.phase in (BETTING, VOTE) else None,
            "round": self.round,
            "players": players,
            "turn": self.turn if self.phase in (BETTING, VOTE) else None,
            "awaiting": list(self.awaiting()),
            "legal": [option.as_json() for option in self.legal(viewer)],
            "closing": closing,
            "events": self.public_events(viewer),
            "timed_out": sorted(self.timed_out),
            "result": None,
        }
        if self.phase == VOTE:
            out["vote"] = {
                "proposer": self.proposer,
                "deal": self.proposal,
                "waiting": list(self.awaiting()),
            }
        if self.phase == SVARA_ENTRY:
            out["svara"] = {
                "fee": self.fee,
                "free": sorted(self.free),
                "waiting": list(self.awaiting()),
            }
        if self.phase == FINISHED:
            out["result"] = {"winners": self.winners, "balances": dict(self.balance)}
        return out

    def result(self) -> HandResult:
        if self.phase != FINISHED:
            raise RuleError(f"the hand is not over: waiting for {', '.join(self.awaiting())}")
        return HandResult(dict(self.balance), list(self.winners), 0, self.round)


# --- the odds bot (policies/odds.py) -----------------------------------------------------


def odds_play(
    bot: OddsBot, player: str, legal: Sequence[Legal], view: View, reading: Reading
) -> Action:
    """The odds bot's play in classic (policies/odds.py `OddsPolicy`)."""
    dos = {o.do for o in legal}
    if view["phase"] == "svara_entry":
        svara = view["svara"]
        return bot.entry(player, legal, view["pot"], svara["fee"], len(svara["free"]))
    if view["phase"] == "dark_decision":  # C-7.5: the dark again, now and then
        return bot.either(player, legal, bot.rng.random() < DARK, "dark_on", "dark_off")
    odds = bot.odds(SCORER, reading)
    if "agree" in dos:  # C-5.2: a split or a cook is worth the fair share
        return bot.either(player, legal, odds.eq <= odds.fair, "agree", "refuse")
    fold = Action(player, "fold")
    level, pot = view["level"], view["pot"]
    raises = sorted((o for o in legal if o.do in ("bet", "give_on") and o.to), key=to_of)
    if level is None:  # C-4.4, C-4.5, C-2.7: open a strong hand, else pass / open
        bets = [o for o in raises if o.do == "bet"]
        if bets and (odds.strength >= RAISE or bot.rng.random() < BLUFF):
            strong = odds.strength >= BIG_RAISE
            return concrete(player, bets[-1] if strong else bets[0], bot.rng)
        return bot.pick(player, legal, "pass", "open") or fold
    look = next((o for o in legal if o.do == "look"), None)
    if not reading.mine:  # C-2.5, C-4.17: the dark player's first decision, unseen
        if look is not None and look.price < level:
            return concrete(player, look, bot.rng)
        call = bot.pick(player, legal, "bet") if odds.pays(pot, level) else None
        return call or fold
    if look is not None:  # C-4.11: the duel with the previous active player
        below, equal = against_one(SCORER, reading.mine, reading.dead)
        if below + equal >= LOOK:  # a tie folds the target
            return concrete(player, look, bot.rng)
    higher = [o for o in raises if to_of(o) > level]
    if higher and odds.strength >= RAISE:
        strong = odds.strength >= BIG_RAISE
        return concrete(player, higher[-1] if strong else higher[0], bot.rng)
    drag = 1 if "lock" in dos else DRAG  # heads-up the lock ends it: no more circles
    if odds.pays(pot, level * drag):
        action = bot.pick(player, legal, "lock", "bet", "give_on")
        if action is not None and action.to in (None, level):
            return action
    if odds.eq < odds.fair:  # C-5.1: better a sure share than a fold
        return bot.pick(player, legal, "propose:split") or fold
    return fold


# --- the game ---------------------------------------------------------------------------

PARAMS = params(
    Param("seats", int, 8, "seats at the table (C-1.1)", 2, 8),
    Param("ante", int, 10, "ante paid by each participant (C-2.1)", 1, 1_000_000),
    Param("levels", tuple, (10, 20, 30), "ordinary bet levels (C-4.2)"),
    Param("dark", bool, True, "the dark may be chosen (C-1.5)"),
    Param("dark_fee", int, 15, "what the dark costs (C-1.5, C-2.1)", 0, 1_000_000),
    Param("dark_min_players", int, 4, "participants needed to activate the dark (C-1.6)", 2, 8),
    Param("look_fee", int, 15, "price of the dark player's privileged look (C-4.17)", 0, 1_000_000),
    Param("turn_seconds", int, 30, "time for one decision (C-4.1)", 5, 600),
    Param("ready_seconds", int, 30, "gathering timer between hands (C-1.3)", 5, 600),
    Param("svara_seconds", int, 30, "time to decide on a Svara entry (C-7.3)", 5, 600),
)


# --- the classic bot: a hand-strength rule (`svara simulate --bot classic`) -------------
@cache
def _classic_keys() -> list[int]:
    return sorted(SCORER.keys.values())


def classic_strength(cards: Sequence[str]) -> float:
    """The share of all three-card hands that a hand beats (C-3): 0 weakest, ~1 absolute."""
    keys = _classic_keys()
    key = SCORER.score(parse_cards(cards)).key
    return bisect_left(keys, key) / len(keys)


class ClassicBot(Bot):
    """A `classic` player: weighs its chance against the active opponents (its hand's
    strength to the power of their number) with the pot odds, looks with a fair hand,
    plays the dark sometimes and proposes a split or a cook with a middling hand."""

    games = ("classic",)

    def wants_dark(self) -> bool:
        return self.rng.random() < 0.25

    def choose(self, player: str, legal: Sequence[Legal], view: View | None) -> Action:
        assert view is not None
        options = {(o.do, o.to, o.deal): o for o in legal}
        me = next(p for p in view["players"] if p["name"] == player)
        rivals = sum(1 for p in view["players"] if p["state"] == "active") - 1
        chance = classic_strength(me["cards"]) ** max(rivals, 1) if me["cards"] else None

        def pick(*keys: tuple[str, int | None, str | None]) -> Action | None:
            for key in keys:
                if key in options:
                    return concrete(player, options[key], self.rng)
            return None

        if view["phase"] == "svara_entry":
            free = len(view["svara"]["free"])
            fee = view["svara"]["fee"]
            worth = fee / (view["pot"] + fee) < 1 / (free + 1)
            return pick(("join", None, None) if worth else ("skip", None, None)) or Action(
                player, "skip"
            )
        if view["phase"] == "dark_decision":
            on = self.rng.random() < 0.5
            return pick(("dark_on" if on else "dark_off", None, None)) or Action(player, "dark_off")
        if "agree" in {o.do for o in legal}:
            yes = chance is None or chance < 0.55
            return pick(("agree" if yes else "refuse", None, None)) or Action(player, "refuse")
        return self._betting(player, legal, view, chance, pick)

    def _betting(
        self,
        player: str,
        legal: Sequence[Legal],
        view: View,
        chance: float | None,
        pick: Callable[..., Action | None],
    ) -> Action:
        rng = self.rng
        level = view["level"]
        fold = Action(player, "fold")
        if chance is None:  # the dark player before his first decision (C-2.5, C-4.17)
            if rng.random() < 0.5:
                return pick(("look", None, None), ("bet", level, None)) or fold
            return pick(("bet", level, None)) or fold
        raises = sorted((o for o in legal if o.do in ("bet", "give_on") and o.to), key=to_of)
        if level is None:  # no bet open: bet a good hand, else pass or open
            bets = [o for o in raises if o.do == "bet"]
            if bets and chance > 0.55:
                return concrete(player, bets[-1] if chance > 0.8 else bets[0], rng)
            return pick(("pass", None, None), ("open", None, None)) or fold
        price = level
        odds = price / (view["pot"] + price)
        if chance < odds * 0.8:
            looks = chance > 0.3 and rng.random() < 0.3
            return (pick(("look", None, None)) or fold) if looks else fold
        active = sum(1 for p in view["players"] if p["state"] == "active")
        if 0.3 < chance < 0.6 and active <= 3 and rng.random() < 0.3:
            deal = pick(("propose", None, "split"), ("propose", None, "cook"))
            if deal is not None:
                return deal
        if chance > 0.45 and rng.random() < 0.5:
            look = pick(("look", None, None))
            if look is not None:
                return look
        if chance > 0.6:
            locked = pick(("lock", None, None))
            if locked is not None:
                return locked
        higher = [o for o in raises if o.to is not None and o.to > level]
        if higher and chance > 0.8:
            return concrete(player, higher[0], rng)
        return pick(("bet", level, None), ("give_on", None, None), ("lock", None, None)) or fold


def action_words(do: str, to: int | None, deal: str | None) -> Words | None:
    """C-4.5, C-5.1: a bet says the level it goes to («Дал 20»), a proposal its deal
    (static/js/games/classic.js `label`)."""
    if do == "propose":
        return f"classic.propose.{deal}", {}
    if do in ("bet", "give_on") and to is not None:
        return f"classic.{do}" + ("_to" if do == "give_on" else ""), {"to": to}
    return None


GAME = Game(
    name="classic",
    title="Свара · классика, 37 карт",
    hand=ClassicHand,
    scorer=SCORER,
    params=PARAMS,
    presets=(
        build_variant(
            "classic", "classic", "37 cards with a joker, play from the balance (C-0.2)", PARAMS, {}
        ),
    ),
    manners=Manners(
        stacks=False,
        gather_param="ready_seconds",
        gather_after_hand=False,
        stand_idle=True,
        stand_offline=False,
        chat_in_hand=True,
        phase_seconds={"svara_entry": "svara_seconds"},
        phase_keeps_turn=frozenset({"vote"}),
    ),
    odds_policy=odds_play,
    demo_tables=(
        ("Классика", "classic", {}),
        ("Классика по 50", "classic", {"ante": 50, "levels": "50,100,150"}),
    ),
    action_words=action_words,
    bots={"classic": ClassicBot},
)
