"""shaha36 rules one by one (docs/rules/shaha36.md): every kind of illegal action is refused with
its message and leaves the hand untouched; the seed's worked examples move exactly the
money they describe; the views show what the rules let each viewer see."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.engine.games import get_variant
from app.engine.hand import POT, Action, RuleError, Seat, Transfer
from app.engine.shaha36 import Shaha36Hand

from .handkit import fingerprint, scripted

TEN_A, TEN_B, TEN_C = "K♠ 9♥ 7♦", "Q♦ 8♣ 7♥", "J♣ 9♦ 8♠"  # 10 each
TWENTY, TRYNKI, EIGHT = "8♦ 9♠ 6♣", "A♥ K♥ Q♥", "8♥ 7♠ 6♦"  # 20, 31, 8
DEAL4 = {"A": TEN_A, "B": TWENTY, "C": TRYNKI, "D": "10♦ 8♠ 8♣"}
K4 = {"A": 1000, "B": 1000, "C": 1000, "D": 1000}
ALL_IN = {"A": 1000, "B": 1000, "C": 50}  # dealer C
SHOW3 = {"A": TWENTY, "B": EIGHT, "C": TEN_A}  # dealer C: A 20, B 8, C 10
TIE3 = {"A": TEN_A, "B": TEN_B, "C": EIGHT}


def new_hand(
    stacks: dict[str, int],
    dealer: str,
    *deals: dict[str, str],
    rules: dict[str, Any] | None = None,
    dark: str | None = None,
) -> Shaha36Hand:
    seats = [Seat(p, b) for p, b in stacks.items()]
    return Shaha36Hand(get_variant("shaha36", rules), seats, dealer, scripted(*deals), dark)


def play(hand: Shaha36Hand, *actions: tuple[Any, ...]) -> Shaha36Hand:
    for a in actions:
        hand.act(Action(*a))
    return hand


def pot_300() -> Shaha36Hand:
    """S-7.3, the seed's example: ante 50, A bets 50, B calls, C and D fold: pot 300, A and
    B tie at 10 and A wants to cook."""
    hand = new_hand(
        {"A": 1000, "B": 1000, "C": 801, "D": 800},
        "D",
        {"A": TEN_A, "B": TEN_B, "C": EIGHT, "D": TWENTY},
        {"A": TEN_A, "B": TEN_B, "C": TRYNKI},
        rules={"ante": 50},
    )
    return play(hand, ("A", "bet", 50), ("B", "call"), ("C", "fold"), ("D", "fold"))


# --- every kind of refusal -------------------------------------------------------------

CALLED = [("A", "bet", 10), ("B", "call"), ("C", "call")]  # then B (8) shows or mucks

CASES: list[tuple[str, str, list[tuple[Any, ...]], Action, str]] = [
    ("unknown action", "four", [], Action("A", "pass"), "unknown action 'pass' in shaha36"),
    ("unknown player", "four", [], Action("Z", "check"), "is not at this table"),
    ("not his turn (S-1.4)", "four", [], Action("B", "check"), "not B's turn: waiting for A"),
    ("check facing a bet (S-3.1)", "four", [("A", "bet", 20)], Action("B", "check"),
     "cannot check: 20 to call"),
    ("call with nothing to call (S-3.1)", "four", [], Action("A", "call"), "nothing to call"),
    ("bet after a bet (S-3.1)", "four", [("A", "bet", 20)], Action("B", "bet", 40),
     "there is a bet already"),
    ("bet below the ante (S-3.2)", "four", [], Action("A", "bet", 5), "at least the ante: 10"),
    ("bet over the pot (S-3.2)", "four", [], Action("A", "bet", 41), "over the pot limit"),
    ("bet without an amount", "four", [], Action("A", "bet"), "bet needs `to` between 10 and 40"),
    ("raise below the last raise (S-3.2)", "four", [("A", "bet", 20)], Action("B", "raise", 30),
     "at least 40"),
    ("raise over the pot limit (S-3.2)", "four", [("A", "bet", 20)], Action("B", "raise", 101),
     "over the pot limit: a raise adds at most, to 100"),
    ("raise beyond the stack (S-5.1)", "four, B short", [("A", "bet", 20)],
     Action("B", "raise", 60), "all-in is to 50"),
    ("raise with no bet (S-3.1)", "four", [], Action("A", "raise", 20), "nothing to raise"),
    ("raise after an all-in (S-5.2)", "all-in", [("A", "bet", 30), ("B", "raise", 90),
     ("C", "call")], Action("A", "raise", 200), "after an all-in nobody raises"),
    ("dark by another than the opener (S-4.1)", "four", [("A", "check")], Action("B", "dark", 10),
     "only A, the first after the dealer, starts the dark"),
    ("dark after looking (S-4.1)", "four", [("A", "look")], Action("A", "dark", 10),
     "only an unlooked player starts the dark"),
    ("dark after the first action (S-4.1)", "four",
     [("A", "check"), ("B", "bet", 20), ("C", "fold"), ("D", "fold")], Action("A", "dark", 40),
     "the dark starts only as the first action"),
    ("dark over ×2 (S-4.2)", "four", [("A", "dark", 10)], Action("B", "dark", 40), "exactly ×2"),
    ("dark by a looked player in the circle (S-4.3)", "four", [("A", "dark", 10), ("B", "look")],
     Action("B", "dark", 20), "B has looked: raise ×2 to un-darken"),
    ("raise by an unlooked player in the circle (S-4.2)", "four", [("A", "dark", 10)],
     Action("B", "raise", 20), "B has not looked: go dark ×2"),
    ("call in the dark circle (S-4.2)", "four", [("A", "dark", 10)], Action("B", "call"),
     "in the dark circle each player bets ×2 or folds"),
    ("dark at a table without it (S-4)", "four without dark", [], Action("A", "dark", 10),
     "the dark is off"),
    ("a fourth card (S-1.3)", "four", [("A", "look", 3)], Action("A", "look"),
     "turned all three cards already"),
    ("turning cards back (S-1.3)", "four", [("A", "look", 2)], Action("A", "look", 1),
     "between 3 and 3, not 1"),
    ("looking after folding (S-1.3)", "four", [("A", "fold")], Action("A", "look"),
     "A has folded"),
    ("looking at the showdown (S-6.2)", "three", CALLED, Action("B", "look"),
     "at the showdown they open"),
    ("show by a stronger hand (S-6.2)", "three", CALLED, Action("A", "show"),
     "not A's turn: waiting for B"),
    ("bet at the showdown (S-6.2)", "three", CALLED, Action("B", "bet", 10),
     "legal: show, muck"),
    ("show while betting (S-6.2)", "four", [], Action("A", "show"),
     "a weaker hand at the showdown shows or mucks"),
    ("cook while betting (S-7.1)", "four", [], Action("A", "cook"),
     "only two tied players vote cook or split"),
    ("vote by a player not tied (S-7.1)", "three tied", [("A", "bet", 10), ("B", "call"),
     ("C", "fold")], Action("C", "cook"),
     "not C's turn: waiting for A, B"),
    ("join while betting (S-7.3)", "four", [], Action("A", "join"),
     "join and skip answer a Svara buy-in offer"),
    ("an amount on a fold", "four", [], Action("A", "fold", 10), "fold takes no amount"),
    ("a call for the wrong amount", "four", [("A", "bet", 20)], Action("B", "call", 30),
     "call is to 20 here, not 30"),
    ("a deal vote on an action", "four", [], Action("A", "check", deal="cook"),
     "check carries no deal"),
    ("a timeout with an amount (S-3.4)", "four", [], Action("A", "timeout", 5),
     "a timeout carries no amount"),
    ("an action after the end", "two", [("A", "fold")], Action("B", "check"),
     "the hand is already over"),
]  # fmt: skip

TABLES: dict[str, tuple[dict[str, int], str, dict[str, str], dict[str, Any]]] = {
    "four": (K4, "D", DEAL4, {}),
    "four without dark": (K4, "D", DEAL4, {"dark": False}),
    "four, B short": ({**K4, "B": 60}, "D", DEAL4, {}),
    "all-in": (ALL_IN, "C", {"A": TEN_A, "B": TWENTY, "C": TRYNKI}, {}),
    "three": ({"A": 1000, "B": 1000, "C": 1000}, "C", SHOW3, {}),
    "three tied": ({"A": 1000, "B": 1000, "C": 1000}, "C", TIE3, {}),
    "two": ({"A": 100, "B": 100}, "B", {"A": TEN_A, "B": TWENTY}, {}),
}


@pytest.mark.parametrize(
    ("table", "before", "action", "message"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_refusal_leaves_the_hand_as_it_was(
    table: str, before: list[tuple[Any, ...]], action: Action, message: str
) -> None:
    stacks, dealer, deal, rules = TABLES[table]
    hand = play(new_hand(stacks, dealer, deal, rules=rules), *before)
    snapshot = fingerprint(hand)
    with pytest.raises(RuleError) as refused:
        hand.act(action)
    assert message in refused.value.message
    assert fingerprint(hand) == snapshot


def test_buy_in_refused_to_a_stack_of_750() -> None:
    """S-7.3: pot 300, two tied: fee 150; 750 − 150 is not more than 600."""
    hand = pot_300()
    hand.act(Action("A", "cook"))
    snapshot = fingerprint(hand)
    with pytest.raises(RuleError, match="not D's turn: waiting for C"):
        hand.act(Action("D", "join"))
    assert fingerprint(hand) == snapshot


def test_failed_svara_deal_leaves_the_hand_as_it_was() -> None:
    """A deal source that cannot deal the Svara refuses the action that needed it, and the
    state (cards, money, events) is as before the action."""
    hand = play(new_hand({"A": 1000, "B": 1000, "C": 1000}, "C", TIE3), ("A", "bet", 10))
    play(hand, ("B", "call"), ("C", "fold"), ("A", "cook"))
    snapshot = fingerprint(hand)
    with pytest.raises(RuleError, match="no more deals"):
        hand.act(Action("C", "skip"))  # the last buy-in answer deals the Svara
    assert fingerprint(hand) == snapshot
    assert hand.awaiting() == ("C",) and hand.offers == ["C"]


@pytest.mark.parametrize(
    ("stacks", "dealer", "dark", "message"),
    [
        ({"A": 100, "B": 5}, "A", None, "B's stack 5 does not cover the ante 10"),
        ({"A": 100, "B": 100}, "Z", None, "the dealer 'Z' is not at the table"),
        ({"A": 100, "B": 100}, "A", "B", "in shaha36 the dark is an action"),
        ({"A": 100}, "A", None, "2..6 players, not 1"),
        ({p: 100 for p in "ABCDEFG"}, "A", None, "2..6 players, not 7"),
    ],
)
def test_a_table_the_rules_cannot_deal(
    stacks: dict[str, int], dealer: str, dark: str | None, message: str
) -> None:
    with pytest.raises(RuleError, match=message):
        new_hand(stacks, dealer, {p: TEN_C for p in stacks}, dark=dark)


# --- the seed's worked examples ---------------------------------------------------------


def test_dark_circle_seed_example() -> None:
    """S-4.1..S-4.3: ante 10: A 10 dark, B 20 dark, C looks and bets 40, D calls 40, raises
    or folds; in the second circle A adds 30, B adds 20."""
    hand = new_hand(K4, "D", DEAL4)
    assert [o.do for o in hand.legal("A")] == ["check", "dark", "bet", "fold", "look"]
    play(hand, ("A", "dark", 10))
    assert hand.legal("B")[0].as_json() == {"do": "dark", "to": 20, "price": 20}
    play(hand, ("B", "dark", 20), ("C", "look", 3))
    assert [o.as_json() for o in hand.legal("C")] == [
        {"do": "raise", "to": 40, "price": 40},
        {"do": "fold", "price": 0},
    ]
    play(hand, ("C", "raise", 40))
    assert not hand.dark_circle  # un-darkened: ordinary betting for D
    assert {o.do for o in hand.legal("D")} == {"call", "raise", "fold", "look"}
    play(hand, ("D", "call"))
    assert hand.legal("A")[0].as_json() == {"do": "call", "to": 40, "price": 30}
    play(hand, ("A", "call"), ("B", "call"))
    bets = [t for t in hand.transfers if t.kind in ("dark", "bet")]
    assert bets == [
        Transfer(10, "A", POT, "dark"),
        Transfer(20, "B", POT, "dark"),
        Transfer(40, "C", POT, "bet"),
        Transfer(40, "D", POT, "bet"),
        Transfer(30, "A", POT, "bet"),
        Transfer(20, "B", POT, "bet"),
    ]
    assert hand.pot == 200
    # S-6.1: B called last and opens first, then clockwise; S-2.7: C's hand is named.
    events = hand.view(None)["events"]
    assert events[-3]["order"] == ["B", "C", "D", "A"]
    assert (events[-1]["player"], events[-1]["label"]) == ("C", "старшие трынки")


def test_dark_circle_short_stacks_go_all_in() -> None:
    """S-5.3: short of ×2 in the dark circle, all-in for the rest. B (15 left) could go dark
    for 15; C, looked, with 8 left can only call all-in: A gets 2 back (S-5.1), the level is
    8 and nobody raises any more (S-5.2)."""
    hand = new_hand({"A": 1000, "B": 25, "C": 18, "D": 1000}, "D", DEAL4)
    play(hand, ("A", "dark", 10))
    assert hand.legal("B")[0].as_json() == {"do": "dark", "to": 15, "price": 15}
    play(hand, ("B", "fold"), ("C", "look"))
    assert hand.legal("C")[0].as_json() == {"do": "call", "to": 8, "price": 8}
    with pytest.raises(RuleError, match="call is to 8 here, not 20: that is all C has"):
        hand.act(Action("C", "call", 20))
    play(hand, ("C", "call"))
    assert hand.transfers[-1] == Transfer(2, POT, "A", "return")
    assert (hand.level, hand.paid["A"], hand.dark_circle) == (8, 8, False)
    assert [o.do for o in hand.legal("D")] == ["call", "fold", "look"]


def test_pot_300_fee_150() -> None:
    """S-7.3, S-7.4: the fee is the pot over the tied (150); only C (751 left) is offered;
    the last tied clockwise from the dealer (B) deals the Svara, with no ante."""
    hand = pot_300()
    assert hand.pot == 300
    hand.act(Action("A", "cook"))
    view = hand.view("C")
    assert view["phase"] == "buy_in"
    assert view["svara"] == {"players": ["A", "B"], "fee": 150, "offers": ["C"]}
    assert view["legal"] == [{"do": "join", "price": 150}, {"do": "skip", "price": 0}]
    hand.act(Action("C", "join"))
    view = hand.view(None)
    assert (view["phase"], view["dealer"], view["round"], view["pot"]) == ("betting", "B", 1, 450)
    assert view["awaiting"] == ["C"]  # the first after the Svara dealer
    assert [p["state"] for p in view["players"]] == ["playing", "playing", "playing", "out"]
    assert [t.kind for t in hand.transfers].count("ante") == 4  # S-7.2: no ante in a Svara
    assert {o.do for o in hand.legal("C")} >= {"dark"}  # S-7.4: dark allowed in a Svara


def test_rake_cap() -> None:
    """S-8.1: 3 % of 4860 is 145; the cap is 10 antes = 100."""
    hand = new_hand({"A": 10_000, "B": 10_000}, "B", {"A": TRYNKI, "B": TEN_A})
    for p, to in [("A", 20), ("B", 80), ("A", 260), ("B", 800), ("A", 2420)]:
        option = next(o for o in hand.legal(p) if o.do in ("bet", "raise"))
        assert option.max_to == to  # every raise the pot limit
        hand.act(Action(p, option.do, to))
    hand.act(Action("B", "call"))
    assert hand.result().rake == 100
    assert hand.transfers[-2:] == [
        Transfer(100, POT, "house", "rake"),
        Transfer(4760, POT, "A", "award"),
    ]


def test_all_in_svara_has_no_betting() -> None:
    """S-7.5: B went all-in; the three tie; the Svara is dealt and shown at once."""
    hand = new_hand(
        {"A": 1000, "B": 50, "C": 1000},
        "C",
        {"A": TEN_A, "B": TEN_B, "C": TEN_C},
        {"A": TEN_A, "B": TRYNKI, "C": TWENTY},
    )
    assert hand.legal("A")[2].as_json() == {"do": "bet", "price": 10, "min_to": 10, "max_to": 30}
    play(hand, ("A", "bet", 30))
    assert hand.legal("B")[1].as_json() == {"do": "raise", "to": 40, "price": 40}  # short all-in
    play(hand, ("B", "raise", 40), ("C", "call"), ("A", "call"))
    assert hand.phase == "showdown" and hand.svaras == 1
    assert hand.awaiting() == ("C",)  # 20 after B's 31: show or muck
    assert [e.kind for e in hand.events].count("no_betting") == 1


# --- what the views show ----------------------------------------------------------------


def test_looked_is_public_cards_are_not() -> None:
    """S-1.3 Decision: everyone sees that B has looked; only B sees the card he turned."""
    hand = play(new_hand(K4, "D", DEAL4), ("A", "check"), ("B", "look"))
    for viewer in (None, "A", "B", "C", "D"):
        seat = hand.view(viewer)["players"][1]
        assert (seat["looked"], seat["turned"]) == (True, 1)
        assert seat["cards"] == (["8♦"] if viewer == "B" else None)
    assert hand.view("A")["players"][0]["cards"] is None  # A never turned a card


def test_mucked_and_folded_hands_are_never_seen() -> None:
    """S-6.2: a mucked hand is in no view and no event, not even its owner's; a folded
    hand likewise."""
    hand = play(
        new_hand({"A": 1000, "B": 1000, "C": 1000, "D": 1000}, "D", DEAL4),
        ("A", "look", 3),
        ("A", "bet", 10),
        ("B", "call"),
        ("C", "call"),
        ("D", "fold"),
        ("A", "muck"),  # from C (last caller): C 31, A 10 is asked first, B after
        ("B", "show"),
    )
    assert hand.finished and hand.result().winners == ["C"]
    for viewer in (None, "A", "B", "C", "D"):
        view = hand.view(viewer)
        states = {p["name"]: (p["state"], p["cards"]) for p in view["players"]}
        assert states["A"] == ("mucked", None) and states["D"] == ("folded", None)
        assert states["B"] == ("shown", TWENTY.split())
        text = json.dumps(view, ensure_ascii=False)
        assert not any(c in text for c in ("K♠", "9♥", "7♦", "10♦", "8♠", "8♣"))


def test_the_first_view() -> None:
    """S-1.2, S-3.1: four antes in the pot, no bet yet, the first after the dealer to act
    (the keys every view has: tests/engine/test_contract.py)."""
    view = new_hand(K4, "D", DEAL4).view("A")
    assert (view["game"], view["phase"], view["pot"], view["level"]) == (
        "shaha36",
        "betting",
        40,
        0,
    )
    assert set(view["players"][0]) >= {"turned", "looked", "all_in"}
    assert view["awaiting"] == ["A"]


def test_next_dealer_moves_clockwise() -> None:
    """S-1.4; a Svara's dealer does not carry over to the next hand."""
    hand = play(new_hand(K4, "B", DEAL4), ("C", "fold"), ("D", "fold"), ("A", "fold"))
    assert hand.result().winners == ["B"] and hand.next_dealer == "C"
