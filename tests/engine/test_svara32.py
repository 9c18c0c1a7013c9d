"""Properties of the svara32 hand under random legal play (B-1 … B-6), 2–6 players, both presets.

A small random driver picks uniformly among `legal(p)` for the awaited players (plus the
timeout), so these tests depend on nothing but the `Hand` API. Each step also checks that
every offered action is accepted, that the bounds of a range are exact, that refusals
leave the hand untouched, that money is conserved and that no view shows a hidden card.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.cards import Shuffle
from app.engine.games import SCORERS, get_variant
from app.engine.hand import Action, Deal, Legal, RuleError, Seat
from app.engine.svara32 import Svara32Hand
from app.engine.variants import Variant

from .handkit import NO_MORE_DEALS, cards_in, check_money, clone, fingerprint, scripted

DECK = SCORERS["svara32"].deck
NAMES = ("anna", "boris", "vera", "gleb", "dima", "egor")
MAX_ACTIONS = 3000
OPTIONS = ("heads_up_call_ends", "blind_chain", "blind_pays_to_see", "last_blind_wins")


class SeededDeals:
    """Deal `i` from `Shuffle.new(DECK, seed=f"{seed}:{i}")`: copyable with the hand."""

    def __init__(self, seed: str):
        self.seed, self.count = seed, 0

    def __call__(self, players: Sequence[str]) -> Deal:
        shuffle = Shuffle.new(DECK, seed=f"{self.seed}:{self.count}")
        self.count += 1
        return Deal(shuffle.deal(players), shuffle.commit, shuffle.seed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeededDeals) and (self.seed, self.count) == (
            other.seed,
            other.count,
        )

    __hash__ = None  # type: ignore[assignment]


@st.composite
def tables(draw: st.DrawFn) -> tuple[Variant, list[Seat], str, str | None, str]:
    """A variant (a preset, sometimes with the B-6 options flipped), seats, dealer, dark."""
    variant = get_variant(draw(st.sampled_from(["svara32", "svara32-traditional"])))
    if draw(st.booleans()):
        variant = variant.with_rules({k: draw(st.booleans()) for k in OPTIONS})
    n = draw(st.integers(2, 6))
    ante = variant["ante"]
    stacks = st.sampled_from([ante, ante + 5, 2 * ante, 3 * ante, 5 * ante, 20 * ante, 100 * ante])
    seats = [Seat(NAMES[i], draw(stacks)) for i in range(n)]
    dealer = draw(st.sampled_from([s.name for s in seats]))
    candidate = Svara32Hand.dark_candidate(variant, seats, dealer)
    dark = candidate if candidate is not None and draw(st.booleans()) else None
    return variant, seats, dealer, dark, draw(st.text("0123456789abcdef", min_size=4, max_size=8))


def concrete(player: str, option: Legal, to: int | None = None) -> Action:
    return Action(player, option.do, to if to is not None else option.to)


def amounts(option: Legal) -> list[int | None]:
    """The amounts worth trying for an option: a fixed one, or both bounds and a middle."""
    if option.min_to is None or option.max_to is None:
        return [option.to]
    return sorted({option.min_to, (option.min_to + option.max_to) // 2, option.max_to})


def refused(hand: Svara32Hand, action: Action, message: str = "") -> None:
    """The action raises RuleError (saying `message`) and changes nothing at all."""
    before = vars(clone(hand))
    with pytest.raises(RuleError) as caught:
        hand.act(action)
    assert message in caught.value.message
    assert vars(hand) == before


def shown_cards(hand: Svara32Hand) -> set[str]:
    """Cards shown to the table: only at a comparison, and never a folded hand (B-3.1)."""
    shown: set[str] = set()
    folded: set[str] = set()
    for event in hand.public_events(None):
        if event["kind"] == "deal":
            folded = set()
        elif event["kind"] == "fold":
            folded.add(event["player"])
        elif event["kind"] == "show":
            assert event["player"] not in folded
            shown.update(event["cards"])
    return shown


def check_views(hand: Svara32Hand) -> None:
    """No view holds a card its viewer may not know; the dark player's unseen hand included."""
    public = shown_cards(hand)
    spectator = hand.view(None)
    json.dumps(spectator)
    assert set(cards_in(spectator)) <= public
    for seat in hand.seats:
        view = hand.view(seat.name)
        json.dumps(view)
        own = {str(c) for deal in hand.deals for c in deal.cards.get(seat.name, ())}
        assert set(cards_in(view)) <= public | own
        me = next(p for p in view["players"] if p["name"] == seat.name)
        current = hand.players[seat.name].cards
        if current is not None and not me["looked"]:
            hidden = {str(c) for c in current} - public
            assert not hidden & set(cards_in(view)), "an unseen hand showed to its owner"
            assert me["cards"] is None or set(me["cards"]) <= public


def check_legal(hand: Svara32Hand) -> None:
    """Every offered action is accepted (ranges at both bounds and between); just outside a
    range is refused; players not awaited have nothing legal and are refused."""
    waiting = hand.awaiting()
    assert waiting and not hand.finished
    for seat in hand.seats:
        if seat.name not in waiting:
            assert hand.legal(seat.name) == []
            refused(hand, Action(seat.name, "fold"), "not")
    view = hand.view(None)
    for player in waiting:
        options = hand.legal(player)
        assert options
        for option in options:  # B-3.3: only a doubled dark/blind bet can outrun a stack
            if option.do == "call" and option.to is not None and option.to < view["level"]:
                assert any(p["dark"] for p in view["players"])
        for option in options:
            assert option.price >= 0
            for to in amounts(option):
                trial = clone(hand)
                trial.act(concrete(player, option, to))
            if option.min_to is not None and option.max_to is not None and option.to is None:
                refused(hand, concrete(player, option, option.min_to - 1), "between")
                refused(hand, concrete(player, option, option.max_to + 1), "between")
        trial = clone(hand)
        trial.act(Action(player, "timeout"))


def play(hand: Svara32Hand, data: st.DataObject, total: int, thorough: bool) -> int:
    """Random legal play to the end; returns the number of actions."""
    actions = 0
    while not hand.finished:
        check_money(hand)
        if thorough:
            check_legal(hand)
            check_views(hand)
        player = data.draw(st.sampled_from(hand.awaiting()))
        options = hand.legal(player)
        choice = data.draw(st.integers(0, len(options)))
        if choice == len(options):
            hand.act(Action(player, "timeout"))
        else:
            option = options[choice]
            to = option.to
            if to is None and option.min_to is not None and option.max_to is not None:
                to = data.draw(st.integers(option.min_to, option.max_to))
            hand.act(concrete(player, option, to))
        actions += 1
        assert actions < MAX_ACTIONS, "the hand does not end"
    return actions


def new_hand(table: tuple[Variant, list[Seat], str, str | None, str]) -> Svara32Hand:
    variant, seats, dealer, dark, seed = table
    return Svara32Hand(variant, seats, dealer, SeededDeals(seed), dark)


@pytest.mark.slow  # docs/testing.md: `make test` runs it, `make test-fast` does not
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.data())
def test_random_play_is_legal_conserving_and_leak_free(table: Any, data: st.DataObject) -> None:
    hand = new_hand(table)
    total = sum(s.balance for s in table[1])
    play(hand, data, total, thorough=True)
    check_money(hand)
    check_views(hand)
    assert hand.pot == 0 and hand.awaiting() == ()


@pytest.mark.slow  # docs/testing.md: `make test` runs it, `make test-fast` does not
@settings(max_examples=300, deadline=None)
@given(tables(), st.data())
def test_random_play_terminates_with_a_winner(table: Any, data: st.DataObject) -> None:
    hand = new_hand(table)
    total = sum(s.balance for s in table[1])
    play(hand, data, total, thorough=False)
    result = hand.result()
    assert sum(result.balances.values()) == total and result.rake == 0
    assert len(result.winners) == 1
    assert result.svaras == hand.round
    assert hand.next_dealer == hand._after(hand.dealer)
    refused(hand, Action(hand.seats[0].name, "fold"), "the hand is already over")


def accepted(hand: Svara32Hand, action: Action) -> bool:
    """Whether the legal list offers `action` (a fixed amount may be left implied)."""
    if action.player not in hand.awaiting():
        return False
    if action.do == "timeout":
        return action.to is None
    for option in hand.legal(action.player):
        if option.do != action.do:
            continue
        if option.to is not None and action.to is None:
            return True
        return option.allows(action)
    return False


@pytest.mark.slow  # docs/testing.md: `make test` runs it, `make test-fast` does not
@settings(max_examples=150, deadline=None)
@given(tables(), st.data())
def test_a_random_illegal_action_changes_nothing(table: Any, data: st.DataObject) -> None:
    """Actions off the legal list are refused without a trace, at any point of the hand."""
    hand = new_hand(table)
    total = sum(s.balance for s in table[1])
    kinds = ["call", "raise", "fold", "look", "join", "skip", "blind", "check", "timeout"]
    while not hand.finished:
        action = Action(
            data.draw(st.sampled_from([s.name for s in hand.seats])),
            data.draw(st.sampled_from(kinds)),
            data.draw(st.one_of(st.none(), st.integers(-5, 2 * total))),
        )
        if not accepted(hand, action):
            refused(hand, action)
        player = data.draw(st.sampled_from(hand.awaiting()))
        option = data.draw(st.sampled_from(hand.legal(player)))
        hand.act(concrete(player, option, amounts(option)[0]))
    check_money(hand)


# --- one test per kind of refusal ---------------------------------------------------------


def heads_up(variant: str = "svara32", dark: str | None = None, **rules: Any) -> Svara32Hand:
    v = get_variant(variant, rules or None)
    seats = [Seat("anna", 100), Seat("boris", 100)]
    return Svara32Hand(v, seats, "anna", SeededDeals("fixed"), dark)


def test_unknown_action() -> None:
    refused(heads_up(), Action("boris", "bet", 10), "unknown action 'bet' in svara32")


def test_not_your_turn() -> None:
    refused(heads_up(), Action("anna", "call"), "it is not anna's turn: waiting for boris")


def test_unknown_player() -> None:
    refused(heads_up(), Action("zoya", "fold"), "'zoya' is not at this table")


def test_after_the_end() -> None:
    hand = heads_up()
    hand.act(Action("boris", "fold"))
    refused(hand, Action("anna", "call"), "the hand is already over")


def test_raise_below_one_stake() -> None:
    refused(heads_up(), Action("boris", "raise", 9), "raise to must be between 10 and 90")


def test_raise_above_the_cap() -> None:
    refused(heads_up(), Action("boris", "raise", 91), "raise to must be between 10 and 90")


def test_raise_without_amount() -> None:
    refused(heads_up(), Action("boris", "raise"), "raise needs `to` between 10 and 90")


def test_amount_on_a_fold() -> None:
    refused(heads_up(), Action("boris", "fold", 10), "fold takes no amount")


def test_call_at_the_wrong_amount() -> None:
    refused(heads_up(dark="boris"), Action("anna", "call", 10), "call is to 20 here, not 10")


def test_look_when_seen() -> None:
    refused(
        heads_up(),
        Action("boris", "look"),
        "boris may not look now; legal: call 0, raise 10..90, fold",
    )


def test_join_outside_a_svara() -> None:
    refused(heads_up(), Action("boris", "join"), "boris may not join")


def test_blind_without_the_chain() -> None:
    refused(heads_up(), Action("boris", "blind", 10), "boris may not blind")


def test_check_only_with_the_traditional_options() -> None:
    refused(heads_up(), Action("boris", "check"), "boris may not check")


def test_blind_not_doubling() -> None:
    hand = heads_up("svara32-traditional")
    hand.act(Action("boris", "blind", 10))
    refused(hand, Action("anna", "blind", 30), "blind is to 20 here, not 30")


def test_timeout_with_an_amount() -> None:
    refused(heads_up(), Action("boris", "timeout", 10), "a timeout carries no amount")


@pytest.mark.parametrize(
    ("seats", "dealer", "dark", "variant", "message"),
    [
        ([("anna", 100)], "anna", None, "svara32", "needs 2 to 6 players"),
        ([("anna", 100), ("boris", 9)], "anna", None, "svara32", "boris cannot pay the ante"),
        ([("anna", 100), ("boris", 100)], "vera", None, "svara32", "is not at the table"),
        ([("anna", 100), ("boris", 100)], "anna", "anna", "svara32", "only boris"),
        ([("anna", 100), ("boris", 15)], "anna", "boris", "svara32", "the dark bet of 10"),
        ([("anna", 100), ("boris", 100)], "anna", "boris", "svara32-traditional", "dark"),
    ],
)
def test_refused_starts(
    seats: list[tuple[str, int]], dealer: str, dark: str | None, variant: str, message: str
) -> None:
    """B-1.2, B-4.1, B-4.4: a hand that cannot be dealt is refused before any money moves."""
    with pytest.raises(RuleError) as caught:
        Svara32Hand(get_variant(variant), [Seat(*s) for s in seats], dealer, SeededDeals("x"), dark)
    assert message in caught.value.message


# --- views ----------------------------------------------------------------------------------


def test_the_dark_hand_hidden_from_its_owner() -> None:
    """B-4.3: the dark player sees his cards only after «Смотреть»; looked is public."""
    hand = heads_up(dark="boris")
    view = hand.view("boris")
    assert view["level"] == 20 and view["pot"] == 30
    boris = view["players"][1]
    assert boris["dark"] and not boris["looked"] and boris["cards"] is None
    assert hand.view("anna")["players"][0]["cards"] is not None
    assert hand.view("anna")["players"][1]["cards"] is None
    hand.act(Action("anna", "raise", 30))
    assert [o["do"] for o in hand.view("boris")["legal"]] == ["call", "raise", "fold", "look"]
    hand.act(Action("boris", "look"))
    assert hand.awaiting() == ("boris",)
    assert hand.view("boris")["players"][1]["cards"] is not None
    assert hand.view("anna")["players"][1]["looked"] is True
    assert hand.view("anna")["players"][1]["cards"] is None
    assert hand.view(None)["legal"] == []


def test_svara_entry_is_simultaneous_and_private() -> None:
    """B-5.2: every outsider is awaited at once; a decision is hidden until all have decided."""
    v = get_variant("svara32")
    seats = [Seat(n, 100) for n in ("anna", "boris", "vera", "gleb")]
    for seed in range(400):
        hand = Svara32Hand(v, seats, "anna", SeededDeals(str(seed)), None)
        for name in ("boris", "vera", "gleb", "anna"):
            hand.act(Action(name, "call"))
        if hand.phase == "svara_entry" and len(hand.awaiting()) == 2:
            break
    else:
        pytest.fail("no two-outsider Svara in 400 deals")
    first, second = hand.awaiting()
    fee = hand.view(first)["svara"]["fee"]
    assert fee == -(-hand.pot // len(hand.tied))
    hand.act(Action(first, "join"))
    assert hand.awaiting() == (second,)
    assert all(e["kind"] != "join" for e in hand.view(second)["events"])
    assert any(e["kind"] == "join" for e in hand.view(first)["events"])
    hand.act(Action(second, "skip"))
    assert hand.phase == "betting" and hand.round == 1
    entry = [e for e in hand.view(None)["events"] if e["kind"] == "svara_entry"]
    assert entry == [{"kind": "svara_entry", "joined": [first], "fee": fee}]


def test_a_svara_deal_that_cannot_be_drawn_changes_nothing() -> None:
    """docs/rules/hand-file.md: a replay short of deals refuses the last Svara entry whole; the hand
    still awaits the same decision (it used to be left with nobody awaited, round 1)."""
    tie = {"anna": "K♠ Q♦ 9♥", "boris": "K♥ Q♣ 9♦", "vera": "8♠ 7♦ 9♣"}  # 10, 10 and 9
    seats = [Seat(n, 100) for n in ("anna", "boris", "vera")]
    hand = Svara32Hand(get_variant("svara32"), seats, "anna", scripted(tie), None)
    for name in ("boris", "vera", "anna"):
        hand.act(Action(name, "call"))
    assert (hand.phase, hand.awaiting(), hand.round) == ("svara_entry", ("vera",), 0)
    before = fingerprint(hand)
    with pytest.raises(RuleError, match=NO_MORE_DEALS):
        hand.act(Action("vera", "skip"))
    assert fingerprint(hand) == before
    assert (hand.phase, hand.awaiting(), hand.round, hand.pending) == (
        "svara_entry",
        ("vera",),
        0,
        ["vera"],
    )
