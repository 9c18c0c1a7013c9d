"""Properties of the shaha36 hand under random play, 2–6 players (docs/rules/shaha36.md).

A small random driver plays each hand: it picks uniformly among `legal(p)` for the awaited
players (ranges at min, max or between; half the tables go dark whenever they may), lets
timers run out, turns cards out of turn, and throws random (mostly illegal) actions at the
hand. After every step it checks that money is conserved, that every legal option is
accepted and any other action refused without a trace (also when a Svara deal fails), and
that no view shows a card its viewer may not see.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import handfile
from app.engine.cards import Shuffle, make_deck, parse_cards
from app.engine.games import SCORERS, get_variant
from app.engine.hand import Action, Deal, DealSource, Legal, RuleError, Seat
from app.engine.shaha36 import ACTIONS, BETTING, SHOWDOWN, TIE, Shaha36Hand

from .handkit import check_money, clone, fingerprint

FULL_DECK = SCORERS["shaha36"].deck
# Only 8 … K: three different suits score 10 often, so ties and Svaras come up a lot.
TIE_DECK = tuple(c for c in make_deck("8", joker=False) if c.rank != "A")
SHORT_STACKS = (10, 11, 15, 25, 40)  # all-in at once or soon (S-5, S-7.5)
STACKS = (100, 300, 1000, 5000)
CARD = re.compile(r"(?:10|[6-9JQKA])[♠♣♥♦]")
FLAKY = "the dealing machine jammed"


def deal_source(seed: int, tie_prone: bool, flaky: bool) -> DealSource:
    """Deals from seeded shuffles; the full deck's deals carry their commitment and seed.
    A flaky source refuses about half the Svara deals (as a hand file short of deals does)."""
    count = [0]

    def source(players: Sequence[str]) -> Deal:
        count[0] += 1
        if flaky and count[0] > 1 and random.Random(f"{seed}/{count[0]}").random() < 0.5:
            raise RuleError(FLAKY)
        shuffle = Shuffle.new(TIE_DECK if tie_prone else FULL_DECK, f"{seed}/{count[0]}")
        if tie_prone:
            return Deal(shuffle.deal(players))
        return Deal(shuffle.deal(players), shuffle.commit, shuffle.seed)

    return source


def accepted(option: Legal, action: Action, hand: Shaha36Hand) -> bool:
    """Whether the rules accept `action` given the offered `option` (a fixed amount may be
    left out; `look` turns up to `to` cards)."""
    if option.do != action.do or action.deal is not None:
        return False
    if option.do == "look":
        turned = hand.turned[action.player]
        return action.to is None or turned < action.to <= 3
    if option.min_to is not None and option.max_to is not None:
        return action.to is not None and option.min_to <= action.to <= option.max_to
    return action.to is None or action.to == option.to


def choices(option: Legal) -> list[int | None]:
    """The amounts a player could send for `option`: both ends of a range and the middle."""
    if option.min_to is not None and option.max_to is not None:
        return sorted({option.min_to, option.max_to, (option.min_to + option.max_to) // 2})
    return [option.to]


class Driver:
    """Plays one hand at random and checks the properties after every step."""

    def __init__(
        self, rng: random.Random, n: int, tie_prone: bool, flaky: bool, rules: dict[str, Any]
    ):
        self.rng = rng
        names = [f"p{i}" for i in range(n)]
        seats = [Seat(p, rng.choice(SHORT_STACKS if rng.random() < 0.1 else STACKS)) for p in names]
        self.total = sum(s.balance for s in seats)
        self.variant = get_variant("shaha36", rules)
        self.hand = Shaha36Hand(
            self.variant,
            seats,
            rng.choice(names),
            deal_source(rng.randrange(10**9), tie_prone, flaky),
        )
        self.dark_lover = rng.random() < 0.5
        self.actions: list[Action] = []
        self.hidden: set[tuple[int, str]] = set()  # (deal, player): folded or mucked hands
        self.seen = ""  # the fingerprint after the last step
        self.check()

    def step(self) -> None:
        hand, rng = self.hand, self.rng
        roll = rng.random()
        if roll < 0.15:
            self.fuzz()
            return
        if roll < 0.2:  # a card turned out of turn by anyone still in the deal
            lookers = [p for p in hand.order if any(o.do == "look" for o in hand.legal(p))]
            if lookers:
                self.apply(Action(rng.choice(lookers), "look"))
                return
        p = rng.choice(hand.awaiting())
        if roll < 0.25:
            self.apply(Action(p, "timeout"))
            return
        options = hand.legal(p)
        dark = [o for o in options if o.do == "dark" or (hand.dark_circle and o.do != "fold")]
        # Half the tables play the dark whenever they may, so the dark circle gets played.
        option = dark[0] if dark and self.dark_lover else rng.choice(options)
        self.apply(Action(p, option.do, rng.choice(choices(option))))

    def fuzz(self) -> None:
        """A random action: refused without a trace, or accepted exactly when it is legal."""
        hand, rng = self.hand, self.rng
        p = rng.choice([*hand.order, "stranger"])
        do = rng.choice([*ACTIONS, "pass"])
        legal = hand.legal(p) if p in hand.order else []
        amounts = [None, 0, 1, 3, 4, hand.level, 2 * hand.level, hand.pot, 10**6]
        for option in legal:
            amounts += [option.to, option.min_to, option.max_to]
            amounts += [x + d for x in (option.min_to, option.max_to) if x for d in (-1, 1)]
        action = Action(p, do, rng.choice(amounts))
        if do == "timeout":
            expected = p in hand.awaiting() and action.to is None
        else:
            expected = any(accepted(o, action, hand) for o in legal)
        try:
            self.apply(action)
        except RuleError as e:
            assert not expected, f"{action} refused although legal: {e}"
            assert e.message
            assert fingerprint(hand) == self.seen, f"{action} was refused but changed the hand"
            return
        assert expected, f"{action} accepted although not offered: {legal}"

    def apply(self, action: Action) -> None:
        hand = self.hand
        deal, phase = len(hand.deals) - 1, hand.phase
        owes = phase == BETTING and hand.paid.get(action.player, 0) < hand.level
        try:
            hand.act(action)
        except RuleError as e:
            if e.message != FLAKY:
                raise
            assert fingerprint(hand) == self.seen, f"{action} failed to deal but changed the hand"
            return
        self.actions.append(action)
        p, do = action.player, action.do
        if do in ("fold", "muck") or (do == "timeout" and (owes or phase == SHOWDOWN)):
            self.hidden.add((deal, p))
        self.check()

    def check(self) -> None:
        hand = self.hand
        # Money is never created or lost (S-8.1: the rake goes to the house).
        assert sum(hand.stack.values()) + hand.pot + hand.rake == self.total
        assert hand.pot >= 0 and all(t.amount > 0 for t in hand.transfers)
        check_money(hand)
        # S-7.5: only the tie of the first deal is voted on; a tie in a Svara cooks at once.
        assert hand.phase != TIE or hand.svaras == 0
        self.check_legal()
        viewers = (None, *hand.order)
        views = [hand.view(v) for v in viewers]
        self.seen = fingerprint(hand)
        for viewer, view in zip(viewers, views, strict=True):
            self.check_view(viewer, view)

    def check_legal(self) -> None:
        """Every option offered to an awaited player is accepted (on a copy of the hand);
        a player not awaited may at most turn his cards."""
        hand = self.hand
        waiting = hand.awaiting()
        assert hand.finished == (not waiting)
        for p in hand.order:
            options = hand.legal(p)
            if p not in waiting:
                assert all(o.do == "look" for o in options), (p, options)
                continue
            assert options, f"{p} is awaited but has nothing to do"
            for option in options:
                if option.do == "look":  # S-1.3: up to `to` cards face up, free
                    assert option.price == 0 and option.to == hand.turned[p] + 1
                elif option.min_to is not None and option.max_to is not None:
                    assert option.min_to <= option.max_to
                    assert option.price == option.min_to - hand.paid[p]
                    # S-3.2: a bet is at most the pot, a raise adds at most the pot after
                    # the call.
                    owe = hand.level - hand.paid[p]
                    assert option.max_to - hand.level <= hand.pot + owe
                    assert option.max_to <= hand.paid[p] + hand.stack[p]
                for to in choices(option):
                    try:
                        clone(hand).act(Action(p, option.do, to))
                    except RuleError as e:
                        assert e.message == FLAKY, e.message  # legal, but the deal failed

    def check_view(self, viewer: str | None, raw: dict[str, Any]) -> None:
        """S-6.2 and the server-authoritative rule: hidden cards are in no view, ever."""
        hand = self.hand
        text = json.dumps(raw, ensure_ascii=False)
        view = json.loads(text)
        assert view["game"] == "shaha36" and view["round"] == hand.svaras
        deal = len(hand.deals) - 1
        dealt = hand.deals[-1].cards
        for seat in view["players"]:
            q, cards = seat["name"], seat["cards"]
            assert seat["looked"] == (seat["turned"] > 0)  # S-1.3: visible to all
            if cards is None:
                continue
            assert (deal, q) not in self.hidden, f"{viewer} sees {q}'s folded or mucked hand"
            own = [str(c) for c in dealt[q]]
            if seat["state"] == "shown":
                assert cards == own
            else:
                assert q == viewer and seat["state"] == "playing", f"{viewer} sees {q}'s cards"
                assert cards == own[: seat["turned"]]
        rounds = -1
        for event in view["events"]:
            if event["kind"] == "deal":
                rounds += 1
            if "cards" in event:
                assert event["kind"] == "show", event
                assert (rounds, event["player"]) not in self.hidden, f"mucked hand in {event}"
                assert event["cards"] == [str(c) for c in hand.deals[rounds].cards[event["player"]]]
        if viewer is not None:
            assert view["legal"] == [o.as_json() for o in hand.legal(viewer)]
        # Nothing else anywhere in the view: no card of the deck, of a hidden hand or of an
        # unturned card, under any key.
        allowed = {c for e in view["events"] for c in e.get("cards", ())}
        allowed |= {c for seat in view["players"] for c in seat["cards"] or ()}
        assert set(CARD.findall(text)) <= allowed

    def play(self, limit: int = 3000) -> Shaha36Hand:
        for _ in range(limit):
            if self.hand.finished:
                return self.hand
            self.step()
        raise AssertionError(f"the hand did not end in {limit} steps")


@pytest.mark.slow  # docs/testing.md: `make test` runs it, `make test-fast` does not
@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    n=st.integers(2, 6),
    tie_prone=st.booleans(),
    flaky=st.booleans(),
    bots=st.booleans(),
    dark=st.booleans(),
)
def test_random_play(
    seed: int, n: int, tie_prone: bool, flaky: bool, bots: bool, dark: bool
) -> None:
    """Conservation, termination, legal-action consistency and no leaks, step by step; a
    Svara deal that fails leaves the hand as it was."""
    driver = Driver(random.Random(seed), n, tie_prone, flaky, {"bots": bots, "dark": dark})
    hand = driver.play()
    result = hand.result()
    assert sum(result.balances.values()) + result.rake == driver.total
    assert result.winners and set(result.winners) <= set(hand.order)
    assert 0 <= result.svaras <= driver.variant["max_svaras"]
    cap = driver.variant["rake_cap_antes"] * driver.variant["ante"]
    assert 0 <= result.rake <= cap
    # S-8.1, S-8.2: 3 % of the final pot, rounded down, capped; none on antes only or
    # with a bot at the table.
    final = result.rake + sum(t.amount for t in hand.transfers if t.kind in ("award", "split"))
    antes = driver.variant["ante"] * n
    due = 0 if bots or final == antes else min(final * driver.variant["rake_percent"] // 100, cap)
    assert result.rake == due
    assert hand.next_dealer in hand.order
    # The hand file of the played hand replays to the same result.
    doc = handfile.record(hand, driver.actions)
    again = handfile.replay(handfile.parse(doc))
    assert handfile.replay_summary(again) == handfile.replay_summary(hand)


TENS = (  # three different suits, no шаха: 10 points each
    "10♠ J♥ Q♦", "J♠ Q♥ K♦", "Q♠ K♥ 10♦", "K♠ 10♥ J♦", "10♣ 9♠ 8♥", "J♣ 9♥ 8♠",
)  # fmt: skip
LOWS = ("8♥ 7♠ 6♦", "8♣ 7♦ 6♥", "9♣ 7♥ 6♠", "9♦ 8♠ 7♣")  # 8 or 9 points, below the tens


@pytest.mark.slow  # docs/testing.md: `make test` runs it, `make test-fast` does not
@settings(max_examples=100, deadline=None)
@given(
    n=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    rng=st.randoms(use_true_random=False),
)
def test_tie_in_a_svara_is_the_next_svara(n: int, seed: int, rng: random.Random) -> None:
    """S-7.1, S-7.5: two players tie in the first deal and vote; from then on every deal is
    a tie again (of two, or of more when others buy in) and the next Svara is dealt at once,
    without a vote, until the tenth Svara's tie splits the pot among its players."""
    names = [f"p{i}" for i in range(n)]
    pair = rng.sample(names, 2)
    deals = [0]

    def source(players: Sequence[str]) -> Deal:
        first = deals[0] == 0
        deals[0] += 1
        lows = iter(LOWS)
        hands = {
            p: TENS[i] if p in pair or not first else next(lows) for i, p in enumerate(players)
        }
        return Deal({p: parse_cards(h.split()) for p, h in hands.items()})

    seats = [Seat(p, 10_000) for p in names]
    hand = Shaha36Hand(get_variant("shaha36"), seats, names[seed % n], source)
    total, steps = sum(s.balance for s in seats), 0
    while not hand.finished:
        p = rng.choice(hand.awaiting())
        dos = {o.do: o for o in hand.legal(p)}
        if hand.phase == TIE:  # the first deal's tie: one of the two wants to cook
            do = "cook" if hand.votes or rng.random() < 0.5 else "split"
        elif hand.phase == "buy_in":
            do = rng.choice(["join", "skip"])
        else:
            do = next(d for d in ("check", "call", "show") if d in dos)
        hand.act(Action(p, do, dos[do].to))
        assert hand.phase != TIE or hand.svaras == 0
        steps += 1
        assert steps < 2000
    kinds = [e.kind for e in hand.events]
    assert kinds.count("tie") == 1 and kinds.count("vote") <= 2
    assert hand.result().svaras == hand.variant["max_svaras"] == 10
    last_deal = hand.events[len(kinds) - 1 - kinds[::-1].index("deal")]
    assert sorted(hand.result().winners) == sorted(last_deal.data["players"])
    assert sum(hand.result().balances.values()) + hand.result().rake == total


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 6))
def test_never_more_than_ten_svaras(seed: int, n: int) -> None:
    """S-7.5: with every deal a tie (same points for all), the pot is split after ten."""
    names = [f"p{i}" for i in range(n)]

    def all_tens(players: Sequence[str]) -> Deal:
        return Deal({p: parse_cards(TENS[i].split()) for i, p in enumerate(players)})

    seats = [Seat(p, 10_000) for p in names]
    hand = Shaha36Hand(get_variant("shaha36"), seats, names[seed % n], all_tens)
    steps = 0
    while not hand.finished:
        p = hand.awaiting()[0]
        options = [o for o in hand.legal(p) if o.do in ("check", "cook", "skip", "call", "show")]
        hand.act(Action(p, options[0].do, options[0].to))
        steps += 1
        assert steps < 2000
    assert hand.result().svaras == 10
    assert sorted(hand.result().winners) == sorted(names)
