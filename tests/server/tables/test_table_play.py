"""Whole hands at live tables through real sockets (docs/rules.md, «Live tables»)."""

from __future__ import annotations

import random

import pytest

from app.engine import handfile

from ..conftest import Server
from ..tablekit import (
    Player,
    balances,
    books,
    everyone,
    grant,
    hands,
    new_table,
    play_hand,
    seat,
)


def test_classic_hands_played_to_the_end_keep_the_books(fast: Server) -> None:
    """C-1.3, C-2.1, C-0.3: three players get ready, play two whole hands with random legal
    decisions; the money only moved between them, every hand file replays, the books balance."""
    table = new_table(fast, "classic")
    players = seat(fast, table, 3, 500)
    names = [p.name for p in players]
    rng = random.Random(5)
    for _ in range(2):
        for p in players:
            assert p.call("table:ready") == {"ok": True}
        final = play_hand(players, rng)
        assert final["result"]["winners"]
        everyone(players, lambda s: s["phase"] != "playing")
    assert sum(balances(fast, names).values()) == 1500
    records = hands(fast, table)
    assert [r.status for r in records] == ["finished", "finished"]
    for record in records:
        replayed = handfile.replay(handfile.parse(record.hand_file))
        assert replayed.finished
    assert books(fast).ok, books(fast).problems
    for p in players:
        p.close()


@pytest.mark.parametrize("variant", ["shaha36", "svara32"])
def test_stack_variants_buy_in_play_and_cash_out(fast: Server, variant: str) -> None:
    """S-1.5, S-1.6: sitting down buys a stack from the balance, hands are played from the
    stacks, standing up returns the stack; money is conserved and the books balance."""
    table = new_table(fast, variant)
    players = seat(fast, table, 3, 1000, stack=400)
    names = [p.name for p in players]
    assert balances(fast, names) == dict.fromkeys(names, 600)
    everyone(players, lambda s: [x["money"] for x in s["seats"] if x] == [400] * 3)
    rng = random.Random(7)
    for _ in range(2):
        for p in players:
            assert p.call("table:ready") == {"ok": True}
        play_hand(players, rng)
        everyone(players, lambda s: s["phase"] != "playing")
    for p in players:
        assert p.call("table:stand") == {"ok": True}
    everyone(players, lambda s: not any(s["seats"]))
    after = balances(fast, names)
    house = 3000 - sum(after.values())
    assert 0 <= house <= 2 * 10 * 10  # the rake at most (S-8.1), none in svara32
    if variant == "svara32":
        assert house == 0
    assert books(fast).ok, books(fast).problems
    for p in players:
        p.close()


def test_svara32_dark_is_chosen_before_the_deal(fast: Server) -> None:
    """B-4.1: only the player after the presumed dealer is offered «Тёмный»; choosing it,
    he places one table stake unseen when the hand starts (B-4.2: it counts double)."""
    table = new_table(fast, "svara32")
    players = seat(fast, table, 2, 1000, stack=400)
    for p in players:
        p.drain()
    (dark,) = [p for p in players if "dark" in p.state["you"]["can"]]
    assert dark.call("table:dark") == {"ok": True}
    other = next(p for p in players if p is not dark)
    assert other.call("table:ready") == {"ok": True}
    dark.until(lambda s: s["phase"] == "playing")
    mine = next(x for x in dark.hand["players"] if x["name"] == dark.name)  # type: ignore[index]
    assert mine["dark"] and mine["cards"] is None and not mine["looked"]
    play_hand(players, random.Random(1))
    assert books(fast).ok


def test_leaving_mid_hand_is_a_fold_and_frees_the_seat_after_it(fast: Server) -> None:
    """S-1.7: standing up in the middle of a hand folds on one's turn; the seat frees and the
    stack returns to the balance once the hand is over."""
    table = new_table(fast, "shaha36")
    players = seat(fast, table, 3, 1000, stack=200)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    everyone(players, lambda s: s["phase"] == "playing")
    leaver = players[2]
    assert leaver.call("table:stand") == {"ok": True}
    leaver.until(lambda s: next(x for x in s["seats"] if x and x["name"] == leaver.name)["leaving"])
    stayers = players[:2]
    play_hand(stayers, random.Random(6))
    everyone(players, lambda s: (s["phase"] != "playing" and s["you"]["seat"] is not None) or True)
    leaver.until(lambda s: leaver.name not in [x["name"] for x in s["seats"] if x])
    folds = [a for a in leaver.state["history"] if a["player"] == leaver.name]
    assert folds and all(a["do"] == "fold" for a in folds)
    assert balances(fast, [leaver.name])[leaver.name] == 1000 - 10  # the ante stays in the pot
    for p in players:
        p.close()


def test_lobby_hears_seats_taken(fast: Server) -> None:
    """C-1.2 in the lobby: a table's seats taken and queue are published as they change."""
    table = new_table(fast, "classic", seats=2)
    listener = Player(fast, table)
    listener.client.call("lobby:join")
    seat(fast, table, 2, 10)
    queued = Player(fast, table)
    grant(fast, queued.name, 10)  # a place in the queue needs the ante (docs/rules.md)
    queued.join()
    queued.sit()
    while (summary := listener.event("lobby:table"))["id"] != table or summary["queue"] != 1:
        pass
    assert summary["seated"] == 2
    listener.close()
    queued.close()
