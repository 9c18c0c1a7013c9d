"""The `classic` hand under random legal play (hypothesis), its views, and its refusals.

Rule scenarios live in tests/hands/classic/*.json; here are the properties that must hold
for every hand: money is conserved (C-0.3), whatever `legal` offers is accepted, every hand
ends, and no view shows a card its viewer may not see (C-4.11, C-4.19, C-6.1, C-6.2).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Sequence

import pytest
from hypothesis import event as note
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import handfile
from app.engine.classic import ClassicHand
from app.engine.games import SCORERS, get_variant
from app.engine.hand import DECLARED, POT, Action, Deal, RuleError, Seat
from app.engine.simulate import seeded_deals

from .handkit import check_money, scripted

VARIANT = get_variant("classic")
DECK = SCORERS["classic"].deck
NAMES = ("anna", "boris", "vera", "gleb", "dima", "egor", "zoya", "lev")


def start(
    balances: Sequence[int], dealer: int = 0, dark: str | None = None, seed: str = "t"
) -> ClassicHand:
    seats = [Seat(NAMES[i], b) for i, b in enumerate(balances)]
    return ClassicHand(VARIANT, seats, NAMES[dealer], seeded_deals(DECK, seed), dark)


def play(hand: ClassicHand, *steps: str) -> None:
    """Apply 'boris bet 10'-style steps."""
    for step in steps:
        player, do, *rest = step.split()
        to = int(rest[0]) if rest and rest[0].isdigit() else None
        deal = rest[0] if rest and not rest[0].isdigit() else None
        hand.act(Action(player, do, to, deal))


def snapshot(hand: ClassicHand) -> str:
    """Everything observable: every seat's view, the spectator's, transfers and deals."""
    views = {str(v): hand.view(v) for v in (*hand.names, None)}
    return json.dumps(
        [views, hand.transfers, [d.cards for d in hand.deals], hand.awaiting()],
        default=str,
        sort_keys=True,
    )


# --- random legal play ---------------------------------------------------------------


class Oracle:
    """What each viewer may have seen, rebuilt from the public events only: his own cards
    (not the dark player's before his first decision), a look's two hands for its two
    players, every active hand at a showdown."""

    def __init__(self, hand: ClassicHand):
        self.hand = hand
        self.seen_events = 0
        self.round = -1
        self.allowed: dict[str | None, set[str]] = {}  # viewer -> owners he may see
        self.dark_next: str | None = None
        self.blind: str | None = None  # the dark player before his first decision

    def update(self) -> None:
        for event in self.hand.events[self.seen_events :]:
            kind, player = event.kind, event.player
            if kind in ("dark", "dark_on"):
                self.dark_next = player
            elif kind == "deal":
                self.round = event.data["round"]
                dealt = set(event.data["players"])
                self.allowed = {v: ({v} if v in dealt else set()) for v in self.hand.names}
                self.allowed[None] = set()
                self.blind, self.dark_next = self.dark_next, None
            elif kind == "look":
                self.allowed[player].add(event.data["target"])
                self.allowed[event.data["target"]].add(player)
            elif kind == "showdown":
                for owners in self.allowed.values():
                    owners |= set(event.data["hands"])
            if player == self.blind and kind in ("bet", "look", "fold"):
                self.blind = None
        self.seen_events = len(self.hand.events)

    def check(self) -> None:
        hand = self.hand
        dealt = {c for deal in hand.deals for cs in deal.cards.values() for c in cs}
        for viewer in (*hand.names, None):
            view = hand.view(viewer)
            text = json.dumps(view, ensure_ascii=False)
            for card in DECK:  # the deck never shows
                if card not in dealt:
                    assert f'"{card}"' not in text
            allowed = set(self.allowed[viewer])
            if viewer == self.blind:  # C-4.19
                allowed.discard(viewer)
            for entry in view["players"]:
                owner = entry["name"]
                if owner not in hand.dealt:
                    assert entry["cards"] is None
                    continue
                assert (entry["cards"] is not None) == (owner in allowed), (viewer, owner)
                if entry["cards"] is not None:
                    assert entry["cards"] == [str(c) for c in hand.cards[owner]]
                elif self.round == 0:  # not anywhere in the view, events included
                    for card in hand.cards[owner]:
                        assert f'"{card}"' not in text, (viewer, owner, card)


TIE_PRONE = [c for c in DECK if c.rank in ("10", "J", "Q", "K", "9", "8")]


def random_deals(rng: random.Random, tie_prone: bool) -> Callable[[Sequence[str]], Deal]:
    """Deals from the whole deck, or from its tens, court cards, nines and eights, where
    ties for the best hand (Svaras) and ties in looks are frequent."""

    def source(players: Sequence[str]) -> Deal:
        cards = rng.sample(TIE_PRONE if tie_prone else DECK, 3 * len(players))
        return Deal({p: tuple(cards[3 * i : 3 * i + 3]) for i, p in enumerate(players)})

    return source


Table = tuple[list[Seat], str, str | None, bool, random.Random]


@st.composite
def tables(draw: st.DrawFn) -> Table:
    n = draw(st.integers(2, 8))
    money = st.sampled_from([5, 12, 24, 25, 40, 100, 300, 300, 1000, 1000])
    seats = [Seat(NAMES[i], b) for i, b in enumerate(draw(st.lists(money, min_size=n, max_size=n)))]
    d = draw(st.integers(0, n - 1))
    dark = draw(st.sampled_from([None, NAMES[(d + 1) % n], NAMES[(d + 1) % n], NAMES[(d + 2) % n]]))
    # A seeded generator rather than st.randoms(): play stays varied instead of shrinking
    # towards the first option every time.
    return seats, NAMES[d], dark, draw(st.booleans()), random.Random(draw(st.integers(0, 2**32)))


@pytest.mark.slow  # docs/testing.md: `make test` runs it, `make test-fast` does not
@settings(max_examples=300, deadline=None)
@given(tables())
def test_random_legal_play(table: Table) -> None:
    """C-0.3, C-4.11, C-4.19, C-6.2 and termination, under random legal play."""
    seats, dealer, dark, tie_prone, rng = table
    deals = random_deals(rng, tie_prone)
    if sum(s.balance >= 10 for s in seats) < 2:
        with pytest.raises(RuleError, match="at least two participants"):
            ClassicHand(VARIANT, seats, dealer, deals, dark)
        return
    hand = ClassicHand(VARIANT, seats, dealer, deals, dark)
    total = sum(s.balance for s in seats)
    oracle = Oracle(hand)
    actions: list[Action] = []
    for _ in range(3000):
        oracle.update()
        check_money(hand, seats)
        oracle.check()
        if hand.finished:
            break
        waiting = hand.awaiting()
        assert waiting, "an unfinished hand always waits for someone"
        movers = [p for p in hand.names if hand.legal(p)]
        assert set(waiting) <= set(movers)
        # C-5.3: what a disconnect declares (a voter's refuse, the proposer's withdraw).
        dropped = {p: a for p in hand.names if (a := hand.disconnect_action(p)) is not None}
        assert not any(o.do in DECLARED for p in movers for o in hand.legal(p))
        # C-1.7, C-5.3: whose timer runs: the awaited, in a vote the proposer alone.
        owners = hand.timer_owners()
        assert owners == waiting or (hand.phase == "vote" and owners == (hand.proposer,))
        if rng.random() < 0.15:  # every option offered to anyone is accepted, and timeouts
            tries = [Action(p, o.do, o.to, o.deal) for p in movers for o in hand.legal(p)]
            timeouts = [Action(p, "timeout") for p in dict.fromkeys((*waiting, *owners))]
            for action in tries + timeouts + [*dropped.values()]:
                copy.deepcopy(hand, {id(hand.variant): hand.variant}).act(action)
            trial = copy.deepcopy(hand, {id(hand.variant): hand.variant})
            trial.act(Action(owners[0], "timeout"))  # only the owner of the timer timed out
            assert trial.timed_out == hand.timed_out | {owners[0]}
            before = json.dumps(hand.view(None), default=str)
            for p in hand.names:  # a withdraw from anyone but the proposer of a vote: refused
                if dropped.get(p) != Action(p, "withdraw"):
                    with pytest.raises(RuleError, match=r"C-5\.3"):
                        hand.act(Action(p, "withdraw"))
            assert json.dumps(hand.view(None), default=str) == before
        player = rng.choice(movers)
        if rng.random() < 0.08 and (player in waiting or hand.phase == "vote"):
            action = Action(player, "timeout")
        elif player in dropped and rng.random() < 0.3:
            action = dropped[player]
        else:  # folds are drawn less often, so that hands go on to looks, deals and Svaras
            legal = hand.legal(player)
            keep = [o for o in legal if o.do != "fold"] if rng.random() < 0.8 else legal
            option = rng.choice(keep or legal)
            action = Action(player, option.do, option.to, option.deal)
        hand.act(action)  # whatever legal offers is accepted
        actions.append(action)
    assert hand.finished, "the hand must end"
    for kind in sorted(
        {e.kind for e in hand.events} & {"look", "svara", "propose", "dark", "split"}
    ):
        note(kind)  # shows with --hypothesis-show-statistics how much play was covered
    if any(a.do == "withdraw" for a in actions):
        note("withdraw")
    result = hand.result()
    assert sum(result.balances.values()) + result.rake == total
    assert result.winners and set(result.winners) <= set(hand.participants)
    assert hand.next_dealer in result.winners
    # record -> replay gives the same hand (C-8.5: a hand resumes from its actions)
    again = handfile.replay(handfile.parse(handfile.record(hand, actions)))
    assert handfile.replay_summary(again) == handfile.replay_summary(hand)


# --- views ---------------------------------------------------------------------------

FOUR = {"anna": "A♥ K♥ Q♥", "boris": "6♠ 6♥ Jk", "vera": "7♠ 8♦ 9♣", "gleb": "10♠ J♠ Q♦"}


def four(dark: str | None = None, *more: dict[str, str]) -> ClassicHand:
    seats = [Seat(n, 100) for n in ("anna", "boris", "vera", "gleb")]
    return ClassicHand(VARIANT, seats, "anna", scripted(FOUR, *more), dark)


def cards_seen(hand: ClassicHand, viewer: str | None) -> dict[str, list[str] | None]:
    return {p["name"]: p["cards"] for p in hand.view(viewer)["players"]}


def test_dark_player_does_not_see_his_cards_before_his_first_decision() -> None:
    """C-4.19: face down for him too until he decides; then his own."""
    hand = four("boris")
    play(hand, "vera bet 30", "gleb bet 30", "anna bet 30")
    assert cards_seen(hand, "boris")["boris"] is None
    assert "6♠" not in json.dumps(hand.view("boris"), ensure_ascii=False)
    assert cards_seen(hand, "vera")["vera"] == ["7♠", "8♦", "9♣"]
    play(hand, "boris bet 30")
    assert cards_seen(hand, "boris")["boris"] == ["6♠", "6♥", "Jk"]


def test_a_look_shows_both_hands_to_its_two_players_only() -> None:
    """C-4.11: the two see both hands; the others and spectators see who dropped."""
    hand = four()
    play(hand, "boris bet 10", "vera look")
    assert cards_seen(hand, "vera")["boris"] == ["6♠", "6♥", "Jk"]
    assert cards_seen(hand, "boris")["vera"] == ["7♠", "8♦", "9♣"]
    for viewer in ("anna", "gleb", None):
        seen = cards_seen(hand, viewer)
        assert seen["boris"] is None and seen["vera"] is None
        text = json.dumps(hand.view(viewer), ensure_ascii=False)
        assert "6♥" not in text and "8♦" not in text
        looks = [e for e in hand.view(viewer)["events"] if e["kind"] == "look"]
        assert looks == [
            {"kind": "look", "player": "vera", "target": "boris", "loser": "vera", "amount": 10}
        ]


def test_own_count_is_in_ones_own_view_only() -> None:
    """C-3.9: the automatic count of one's own hand is shown to that player only (the
    browser shows it when his setting asks for it); not to the dark player in the dark."""
    hand = four("boris")
    anna = hand.view("anna")["players"]
    assert (anna[0]["points"], anna[0]["absolute"]) == (31, False)
    assert all("points" not in p for p in anna[1:])
    assert "points" not in hand.view("boris")["players"][1]
    assert all("points" not in p for p in hand.view(None)["players"])
    play(hand, "vera bet 30", "gleb bet 30", "anna bet 30", "boris bet 30")
    boris = hand.view("boris")["players"][1]
    assert (boris["points"], boris["absolute"]) == (None, True)


def test_the_history_is_every_decision_in_order() -> None:
    """C-4.15: the view's events are the hand's decisions in order (the table shows the
    last three, «История действий» all of them)."""
    hand = four()
    play(hand, "boris bet 10", "vera look", "gleb timeout", "anna bet 20")
    decisions = [(e["kind"], e.get("player")) for e in hand.view("gleb")["events"]][2:]
    assert decisions == [
        ("bet", "boris"),
        ("look", "vera"),
        ("fold", "gleb"),
        ("bet", "anna"),
    ]
    assert hand.view("gleb")["events"][4] == {"kind": "fold", "player": "gleb", "reason": "timeout"}


def test_win_by_folds_keeps_the_winners_cards_hidden() -> None:
    """C-6.2: the last player wins at once and nobody sees his cards."""
    hand = four()
    play(hand, "boris bet 10", "vera fold", "gleb fold", "anna fold")
    assert hand.finished and hand.result().winners == ["boris"]
    for viewer in ("anna", "vera", "gleb", None):
        assert cards_seen(hand, viewer)["boris"] is None
    assert hand.view(None)["result"] == {"winners": ["boris"], "balances": hand.balance}


def test_showdown_shows_the_active_hands_to_everyone() -> None:
    """C-6.1: at a showdown the active players' cards are open; a folded hand stays hidden."""
    hand = four()
    play(hand, "boris pass", "vera fold", "gleb pass", "anna open")
    seen = cards_seen(hand, None)
    assert seen["anna"] == ["A♥", "K♥", "Q♥"] and seen["boris"] == ["6♠", "6♥", "Jk"]
    assert seen["vera"] is None
    assert hand.result().winners == ["boris"]


def test_the_first_legal_options_and_their_prices() -> None:
    """C-2.5, C-4.17: after a dark the level is 30 and the dark player's look costs 15 (the
    keys every view has: tests/engine/test_contract.py)."""
    hand = four("boris")
    view = hand.view("vera")
    assert view["game"] == "classic" and view["phase"] == "betting" and view["level"] == 30
    assert view["pot"] == 55 and view["awaiting"] == ["vera"] and view["round"] == 0
    assert view["legal"] == [{"do": "bet", "to": 30, "price": 30}, {"do": "fold", "price": 0}]
    assert [p["dark"] for p in view["players"]] == [False, True, False, False]
    assert hand.view("anna")["legal"] == []
    play(hand, "vera bet 30", "gleb bet 30", "anna bet 30")
    assert {"do": "look", "price": 15} in hand.view("boris")["legal"]  # C-4.17


def test_next_dealer_is_the_winner_or_the_first_splitter() -> None:
    """C-6.3 and C-5.5: the winner deals next; after a split, the first to get the rest."""
    hand = four()
    play(hand, "boris bet 10", "vera fold", "gleb fold", "anna fold")
    assert hand.next_dealer == "boris"
    hand = four()
    play(hand, "boris bet 10", "vera fold", "gleb bet 10", "anna bet 10")
    play(hand, "boris propose split", "gleb agree", "anna agree")
    assert hand.next_dealer == "boris" and hand.result().winners == ["boris", "gleb", "anna"]


def test_svara_entry_is_simultaneous_with_the_fee() -> None:
    """C-7.3: all eligible players are asked at once, at ceil(pot / tied)."""
    tie = {"anna": "10♥ Q♥ 7♣", "boris": "10♠ J♠ 6♦", "vera": "7♠ 8♦ 9♣", "gleb": "A♦ 9♥ 8♣"}
    seats = [Seat(n, 100) for n in ("anna", "boris", "vera", "gleb")]
    hand = ClassicHand(VARIANT, seats, "anna", scripted(tie, FOUR), None)
    play(hand, "boris bet 10", "vera fold", "gleb fold", "anna bet 10", "boris lock")
    assert hand.phase == "svara_entry" and hand.awaiting() == ("vera", "gleb")
    assert hand.legal("gleb")[0].price == 35  # ceil(70 / 2)
    assert hand.view("vera")["svara"] == {
        "fee": 35,
        "free": ["anna", "boris"],
        "waiting": ["vera", "gleb"],
    }
    play(hand, "gleb join")
    assert hand.awaiting() == ("vera",)
    play(hand, "vera timeout")
    assert (
        hand.phase == "betting" and hand.round == 1 and set(hand.dealt) == {"anna", "boris", "gleb"}
    )
    assert "vera" in hand.view(None)["timed_out"]


def test_a_proposal_waits_for_the_others_and_the_proposer_may_still_act() -> None:
    """C-5.2, C-5.3: the vote awaits the others; the proposer's ordinary action cancels it."""
    hand = four()
    play(hand, "boris bet 10", "vera fold", "gleb bet 10", "anna bet 10", "boris propose cook")
    assert hand.phase == "vote" and hand.awaiting() == ("anna", "gleb")
    assert [o.do for o in hand.legal("gleb")] == ["agree", "refuse"]
    assert "propose" not in {o.do for o in hand.legal("boris")}
    play(hand, "gleb agree", "boris give_on")
    assert hand.phase == "betting" and hand.turn == "gleb"
    assert [e.kind for e in hand.events[-2:]] == ["vote_cancelled", "give_on"]


def test_a_vote_timeout_is_the_proposers() -> None:
    """C-5.3, C-1.7: the vote runs in the proposer's turn time; when a voter's answer is
    still missing at its end, the proposer folds and he is the one who timed out."""
    hand = four()
    play(hand, "boris bet 10", "vera fold", "gleb fold", "anna bet 10", "boris propose split")
    play(hand, "anna timeout")
    assert hand.result().winners == ["anna"]
    assert hand.view(None)["timed_out"] == ["boris"]


def test_the_vote_runs_on_the_proposers_timer() -> None:
    """C-5.3, C-1.7: the voters are awaited, but the timer is the proposer's turn: the
    server declares the vote's timeout for him, and he alone timed out."""
    hand = four()
    play(hand, "boris bet 10", "vera fold", "gleb bet 10", "anna bet 10")
    assert hand.timer_owners() == hand.awaiting() == ("boris",)
    play(hand, "boris propose cook")
    assert hand.awaiting() == ("anna", "gleb") and hand.timer_owners() == ("boris",)
    play(hand, "anna agree")
    assert hand.timer_owners() == ("boris",)
    play(hand, "boris timeout")
    assert hand.phase == "betting" and hand.turn == "gleb"
    assert hand.timer_owners() == ("gleb",)
    assert hand.view(None)["timed_out"] == ["boris"]


def test_a_disconnected_proposer_withdraws_and_his_turn_goes_on() -> None:
    """C-5.3: the proposer's disconnect (the server's `withdraw`) cancels the vote at once;
    the turn stays his, without a second proposal (C-5.2), and nobody timed out (C-1.7)."""
    hand = four()
    play(hand, "boris bet 10", "vera fold", "gleb bet 10", "anna bet 10", "boris propose cook")
    assert hand.disconnect_action("boris") == Action("boris", "withdraw")
    events = hand.act(Action("boris", "withdraw"))
    assert [e.as_json() for e in events] == [
        {"kind": "vote_cancelled", "player": "boris", "deal": "cook", "why": "disconnect"}
    ]
    view = hand.view("boris")
    assert (view["phase"], view["turn"], view["timed_out"]) == ("betting", "boris", [])
    assert hand.awaiting() == ("boris",) and "vote" not in view
    assert [o["do"] for o in view["legal"]] == ["give_on", "give_on", "give_on", "look", "fold"]
    assert hand.disconnect_action("boris") is None


def test_a_disconnect_answers_the_vote_only_for_those_still_in_it() -> None:
    """C-5.3: a voter still to answer refuses; one who has agreed, a folded player and
    anyone outside a vote are left to their timers."""
    hand = four()
    play(hand, "boris bet 10", "vera fold", "gleb bet 10", "anna bet 10")
    assert {p: hand.disconnect_action(p) for p in hand.names} == dict.fromkeys(hand.names)
    play(hand, "boris propose split", "gleb agree")
    assert [hand.disconnect_action(p) for p in ("anna", "gleb", "vera")] == [
        Action("anna", "refuse"),
        None,
        None,
    ]


def test_every_payment_is_a_transfer_and_an_event_with_its_amount() -> None:
    """C-0.3, C-2.1: the ledger gets one transfer per payment and the award; the events
    carry the amounts."""
    hand = four("boris")
    play(hand, "vera bet 30", "gleb fold", "anna fold", "boris bet 30", "vera lock")
    assert [(t.kind, t.source, t.target, t.amount) for t in hand.transfers] == [
        *[("ante", n, POT, 10) for n in ("anna", "boris", "vera", "gleb")],
        ("dark", "boris", POT, 15),
        ("bet", "vera", POT, 30),
        ("bet", "boris", POT, 30),
        ("bet", "vera", POT, 30),
        ("award", POT, "boris", 145),
    ]
    amounts = [(e.kind, e.player, e.data.get("amount")) for e in hand.events]
    assert ("lock", "vera", 30) in amounts and amounts[-1] == ("award", "boris", 145)


# --- refusals: each kind is refused with its message and changes nothing --------------

REFUSALS: list[tuple[str, str | None, tuple[str, ...], str, str]] = [
    ("not your turn", None, (), "anna bet 10", "it is not anna's turn: waiting for boris"),
    ("unknown action", None, (), "boris check", "unknown action 'check'"),
    ("pass with a bet open", None, ("boris bet 10",), "vera pass", "a bet of 10 is open, C-4.4"),
    ("a level that does not exist", None, (), "boris bet 15", "the levels are 10, 20, 30"),
    (
        "a bet on the closing turn",
        None,
        ("boris bet 10", "vera bet 10", "gleb bet 10", "anna bet 10"),
        "boris bet 20",
        "boris may not bet 20 now (on the closing turn a raise is give_on N",
    ),
    ("open before the last word", None, (), "boris open", "only the last word with no bet opens"),
    (
        "lock with four active",
        None,
        ("boris bet 10", "vera bet 10", "gleb bet 10", "anna bet 10"),
        "boris lock",
        "boris may not lock now (only with two active players, C-4.8)",
    ),
    (
        "give_on off the closing turn",
        None,
        ("boris bet 10",),
        "vera give_on",
        "only on the closing turn",
    ),
    ("look with no bet", None, (), "boris look", "boris may not look"),
    (
        "look before the dark",
        "boris",
        ("vera bet 30",),
        "gleb look",
        "before the dark player's first decision",
    ),
    (
        "look at an unpaid level",
        None,
        ("boris bet 10", "vera bet 10", "gleb bet 10", "anna bet 10", "boris give_on 20"),
        "vera look",
        "boris has not paid the level 20, C-4.11",
    ),
    (
        "a deal with four active",
        None,
        ("boris bet 10", "vera bet 10", "gleb bet 10", "anna bet 10"),
        "boris propose split",
        "boris may not propose split now (2 or 3 players, C-5.1)",
    ),
    ("agree with no vote", None, ("boris bet 10",), "vera agree", "vera may not agree"),
    ("join outside a Svara", None, (), "boris join", "boris may not join"),
    ("dark_on outside a Svara", "boris", (), "vera dark_on", "vera may not dark_on"),
    ("timeout of another", None, (), "vera timeout", "it is not vera's turn"),
    (
        "withdraw outside a vote",
        None,
        ("boris bet 10", "vera fold", "gleb fold", "anna bet 10"),
        "boris withdraw",
        "boris has no proposal to withdraw: no vote is open (C-5.3)",
    ),
    (
        "withdraw by a voter",
        None,
        ("boris bet 10", "vera fold", "gleb fold", "anna bet 10", "boris propose split"),
        "anna withdraw",
        "only the proposer boris withdraws the proposal (C-5.3)",
    ),
    (
        "withdraw with an amount",
        None,
        ("boris bet 10", "vera fold", "gleb fold", "anna bet 10", "boris propose split"),
        "boris withdraw 10",
        "a withdraw carries no amount and no deal",
    ),
    (
        "a second proposal after a refusal",
        None,
        (
            "boris bet 10",
            "vera fold",
            "gleb fold",
            "anna bet 10",
            "boris propose split",
            "anna refuse",
        ),
        "boris propose cook",
        "(one proposal per turn, C-5.2)",
    ),
]


@pytest.mark.parametrize(
    ("setup_dark", "setup", "attempt", "message"),
    [r[1:] for r in REFUSALS],
    ids=[r[0] for r in REFUSALS],
)
def test_refusal_changes_nothing(
    setup_dark: str | None, setup: tuple[str, ...], attempt: str, message: str
) -> None:
    hand = four(setup_dark)
    play(hand, *setup)
    before = snapshot(hand)
    with pytest.raises(RuleError) as refused:
        play(hand, attempt)
    assert message in refused.value.message
    assert refused.value.player == attempt.split()[0]
    assert snapshot(hand) == before


def test_refusal_after_the_hand_is_over() -> None:
    hand = four()
    play(hand, "boris bet 10", "vera fold", "gleb fold", "anna fold")
    before = snapshot(hand)
    with pytest.raises(RuleError, match="already over"):
        play(hand, "anna bet 10")
    assert snapshot(hand) == before


def test_a_missing_deal_leaves_the_hand_untouched() -> None:
    """A Svara that its deal source cannot deal: the error changes nothing (the lock is
    refused whole, not half applied)."""
    tie = {"anna": "10♥ Q♥ 7♣", "boris": "10♠ J♠ 6♦"}
    hand = ClassicHand(VARIANT, [Seat("anna", 100), Seat("boris", 100)], "anna", scripted(tie))
    play(hand, "boris bet 10", "anna bet 10")
    before = snapshot(hand)
    with pytest.raises(RuleError, match="no more deals"):
        play(hand, "boris lock")
    assert snapshot(hand) == before
    assert next(o.do for o in hand.legal("boris")) == "lock"


def test_refusal_of_a_bet_without_the_money() -> None:
    """C-4.12: only the levels a player can pay are offered."""
    seats = [Seat("anna", 100), Seat("boris", 25), Seat("vera", 100)]
    hand = ClassicHand(VARIANT, seats, "anna", scripted(FOUR))
    before = snapshot(hand)
    with pytest.raises(RuleError, match="legal: pass, bet 10, fold"):
        play(hand, "boris bet 20")
    assert snapshot(hand) == before


def test_dark_candidate() -> None:
    """C-1.5, C-2.3: the nearest participant after the dealer, with 25 ₽; when the dealer
    cannot play, the one after the participant who deals instead."""

    def candidate(balances: Sequence[int], dealer: int = 0) -> str | None:
        seats = [Seat(NAMES[i], b) for i, b in enumerate(balances)]
        return ClassicHand.dark_candidate(VARIANT, seats, NAMES[dealer])

    assert candidate([100, 100, 100, 100]) == "boris"
    assert candidate([100, 100, 100, 100], dealer=3) == "anna"
    assert candidate([100, 5, 100, 100]) == "vera"  # boris does not play
    assert candidate([100, 24, 100, 100]) is None  # boris plays but cannot pay the dark
    assert candidate([5, 100, 100, 100]) == "vera"  # boris deals instead of anna
    assert candidate([100, 5]) is None
    no_dark = VARIANT.with_rules({"dark": False})
    assert ClassicHand.dark_candidate(no_dark, [Seat("a", 100), Seat("b", 100)], "a") is None
    hand = ClassicHand(
        VARIANT,
        [Seat(n, b) for n, b in zip(NAMES, [5, 100, 100, 100, 100], strict=False)],
        "anna",
        seeded_deals(DECK, "x"),
        "vera",
    )
    assert hand.dark_line == "vera" and hand.view(None)["dealer"] == "boris"


def test_a_recorded_hand_keeps_its_shuffle_seeds() -> None:
    """docs/rules/hand-file.md: a stored hand carries each deal's commitment and seed; replay checks
    them, so a changed card is caught."""
    hand = start([100, 100, 100], seed="rec")
    play(hand, "boris fold", "vera fold")
    doc = handfile.record(hand, [Action("boris", "fold"), Action("vera", "fold")])
    assert all({"commit", "seed"} <= set(deal) for deal in doc["deals"])
    assert handfile.replay(handfile.parse(doc)).result() == hand.result()
    deal = doc["deals"][0]
    deal["anna"], deal["boris"] = deal["boris"], deal["anna"]
    with pytest.raises(handfile.ReplayError, match="does not match its shuffle seed"):
        handfile.replay(handfile.parse(doc))


def test_timeout_carries_nothing() -> None:
    hand = four()
    with pytest.raises(RuleError, match="carries no amount"):
        hand.act(Action("boris", "timeout", 10))
