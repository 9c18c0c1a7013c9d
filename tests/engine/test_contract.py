"""The contract of `Hand` (hand.py), checked over every registered game under random play.

After every step: money is conserved (C-0.3, S-8, B-3.4); an accepted action only appends to
the logs and returns the events it added; an unfinished hand waits for someone who has a
legal action; a refused action — an illegal one, or a legal one whose Svara deal cannot be
drawn (docs/rules/hand-file.md: a file short of deals) — changes nothing at all; every view has
the keys the server and the page read, offers exactly `legal` in one of its three shapes, and
shows no card its viewer may not know; the finished hand replays from its record.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import games, handfile
from app.engine.cards import Card, Shuffle
from app.engine.games import GAME_PARAMS, PRESETS, SCORERS
from app.engine.hand import DECLARED, Action, Deal, DealSource, Hand, Legal, RuleError, Seat
from app.engine.variants import Variant

from .handkit import cards_in, check_money, clone, fingerprint

JAMMED = "the dealing machine jammed"
VIEW_KEYS = {"game", "variant", "phase", "dealer", "pot", "level", "round", "turn", "players"}
VIEW_KEYS |= {"awaiting", "legal", "events"}
SEAT_KEYS = {"name", "balance", "state", "paid", "cards", "dark"}
GAME_NAMES = list(games.GAMES)


def flaky_deals(deck: Sequence[Card], seed: int, tie_prone: bool) -> DealSource:
    """Seeded deals; from the second on, about a third are refused (the undo is exercised).
    Tie-prone tables deal from the 8s to the Ks, where Svaras are frequent."""
    pool = [c for c in deck if c.rank in ("8", "9", "10", "J", "Q", "K")] if tie_prone else deck
    count = [0]

    def source(players: Sequence[str]) -> Deal:
        count[0] += 1
        if count[0] > 1 and random.Random(f"{seed}/{count[0]}").random() < 0.35:
            raise RuleError(JAMMED)
        shuffle = Shuffle.new(pool, f"{seed}/{count[0]}")
        return Deal(shuffle.deal(players))

    return source


Table = tuple[Variant, list[Seat], str, str | None, bool, random.Random]


@st.composite
def tables(draw: st.DrawFn, name: str) -> Table:
    game = games.game(name)
    variant = draw(st.sampled_from(game.presets))
    ante = variant["ante"]
    n = draw(st.integers(2, variant["seats"]))
    money = st.sampled_from([ante, ante + 5, 2 * ante, 3 * ante, 5 * ante, 20 * ante, 100 * ante])
    seats = [Seat(f"Иван{i}" if i % 2 else f"Ёж {i}", draw(money)) for i in range(n)]
    dealer = draw(st.sampled_from([s.name for s in seats]))
    candidate = game.hand.dark_candidate(variant, seats, dealer)
    dark = candidate if draw(st.booleans()) else None
    tie_prone = draw(st.booleans())
    return variant, seats, dealer, dark, tie_prone, random.Random(draw(st.integers(0, 2**32)))


def check_legal_shape(option: Legal, json_option: dict[str, Any]) -> None:
    """No amount, a fixed one (`Legal.fixed`) or a range (`Legal.range`, its default amount
    inside it), nothing between."""
    assert json_option == option.as_json()
    assert option.price >= 0
    if option.ranged:
        assert option.min_to is not None and option.max_to is not None
        assert option.min_to <= option.max_to
        assert option.to is None or option.min_to <= option.to <= option.max_to
    else:
        assert option.max_to is None
    assert option.do not in DECLARED


def check_views(hand: Hand) -> None:
    """The keys of every view; `legal` as offered; no card a viewer may not know: a
    spectator sees only cards the public events showed, a seat also his own and those his
    own events showed him, and nobody a card that was never dealt."""
    dealt = {str(c) for deal in hand.deals for cs in deal.cards.values() for c in cs}
    public = set(cards_in(hand.public_events(None)))
    names = [s.name for s in hand.seats]
    for viewer in (None, *names):
        view = hand.view(viewer)
        json.dumps(view)
        assert set(view) >= VIEW_KEYS, VIEW_KEYS - set(view)
        assert view["game"] == hand.game and view["phase"] == hand.phase
        assert view["awaiting"] == list(hand.awaiting())
        assert [p["name"] for p in view["players"]] == names
        assert all(set(p) >= SEAT_KEYS for p in view["players"])
        legal = hand.legal(viewer) if viewer is not None else []
        assert len(view["legal"]) == len(legal)
        for option, shown in zip(legal, view["legal"], strict=True):
            check_legal_shape(option, shown)
        # The events a viewer keeps (`public_events`) are what his events are now, after
        # a refused action's restore too, and each call gives a list of its own.
        assert view["events"] == [e.as_json() for e in hand.events if e.visible_to(viewer)]
        assert hand.public_events(viewer) is not hand.public_events(viewer)
        seen = set(cards_in(view))
        assert seen <= dealt
        allowed = public | set(cards_in(hand.public_events(viewer)))
        if viewer is not None:
            allowed |= {str(c) for deal in hand.deals for c in deal.cards.get(viewer, ())}
        assert seen <= allowed, (viewer, seen - allowed)
    assert hand.view(None)["legal"] == []


def step(hand: Hand, rng: random.Random) -> Action | None:
    """One random action for an awaited player (mostly a legal option, now and then a
    timeout), or a random illegal one. Returns the action if the hand took it."""
    waiting = hand.awaiting()
    names = [s.name for s in hand.seats]
    roll = rng.random()
    if roll < 0.1:  # anything at all, from anyone: taken only when the rules allow it
        player = rng.choice([*names, "Мария"])
        do = rng.choice(["bet", "call", "raise", "fold", "look", "join", "skip", "pass", "zz"])
        action = Action(player, do, rng.choice([None, 0, 1, 10, 10**9]))
    elif roll < 0.15:
        action = Action(rng.choice(waiting), "timeout")
    else:
        player = rng.choice(waiting)
        options = hand.legal(player)
        assert options, f"{player} is awaited but has nothing legal"
        keep = [o for o in options if o.do != "fold"] if rng.random() < 0.8 else options
        option = rng.choice(keep or options)
        to = option.to
        if option.ranged:
            assert option.min_to is not None and option.max_to is not None
            to = rng.choice(
                [option.min_to, option.max_to, rng.randint(option.min_to, option.max_to)]
            )
        action = Action(player, option.do, to, option.deal)
    offered = (action.do == "timeout" and action.player in waiting) or any(
        o.allows(action) for o in hand.legal(action.player)
    )
    before = fingerprint(hand)
    logs = (list(hand.events), list(hand.transfers), list(hand.deals))
    try:
        events = hand.act(action)
    except RuleError as refused:
        assert fingerprint(hand) == before, f"a refused {action} changed the hand"
        assert (hand.events, hand.transfers, hand.deals) == logs
        assert not offered or refused.message == JAMMED, f"{action} offered, refused: {refused}"
        return None
    # An accepted action only appends: its events, its transfers, a deal it drew.
    assert hand.events[: len(logs[0])] == logs[0] and events == hand.events[len(logs[0]) :]
    assert hand.transfers[: len(logs[1])] == logs[1]
    assert hand.deals[: len(logs[2])] == logs[2]
    return action


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_hand_keeps_the_contract(name: str, data: st.DataObject) -> None:
    variant, seats, dealer, dark, tie_prone, rng = data.draw(tables(name))
    game = games.game(name)
    deals = flaky_deals(game.scorer.deck, rng.randrange(10**9), tie_prone)
    try:
        hand = game.hand(variant, seats, dealer, deals, dark)
    except RuleError:
        return  # a table the rules cannot deal (the per-game tests check which)
    actions: list[Action] = []
    for _ in range(2000):
        check_money(hand, seats)
        check_views(hand)
        if hand.finished:
            break
        assert hand.awaiting(), "an unfinished hand always waits for someone"
        if rng.random() < 0.1:  # a copy plays on without touching the hand
            before = fingerprint(hand)
            with contextlib.suppress(RuleError):
                clone(hand).act(Action(hand.awaiting()[0], "timeout"))
            assert fingerprint(hand) == before
        taken = step(hand, rng)
        if taken is not None:
            actions.append(taken)
    assert hand.finished and hand.phase == "finished", "the hand must end"
    result = hand.result()
    assert sum(result.balances.values()) + result.rake == sum(s.balance for s in seats)
    assert result.winners and hand.next_dealer is not None
    assert hand.history == actions
    again = handfile.replay(handfile.parse(handfile.record(hand, actions)))
    assert handfile.replay_summary(again) == handfile.replay_summary(hand)


def test_every_game_is_registered_once() -> None:
    """games.MODULES is the one registration line; the indexes agree with the records."""
    assert GAME_NAMES == ["classic", "shaha36", "svara32"]
    for name in GAME_NAMES:
        game = games.game(name)
        assert game.hand.game == name and game.scorer.game == name
        assert SCORERS[name] is game.scorer and GAME_PARAMS[name] is game.params
        assert game.presets[0].name == name
        assert all(PRESETS[v.name] is v and v.game == name for v in game.presets)
