"""Timers at live tables (C-1.3, C-1.7, C-4.12, C-4.13, S-1.6), driven fast by
`SVARA_TIMER_SCALE`: the tests wait on the events the server sends, never on a clock."""

from __future__ import annotations

import time
from typing import Any

from ..conftest import Server
from ..tablekit import (
    FAST,
    Player,
    balances,
    books,
    decide,
    everyone,
    hands,
    new_table,
    seat,
    whose_turn,
)


def news(state: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in state["news"] if e["kind"] == kind]


def test_turn_timeouts_play_the_automatic_action_and_stand_the_idle_up(fast: Server) -> None:
    """C-4.12/C-4.13: nobody acts, every turn times out as a pass and the table opens the
    cards by itself; C-1.7's Decision: the players who timed out are stood up at the end."""
    table = new_table(fast, "classic", turn_seconds=FAST)
    players = seat(fast, table, 3, 100)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    watcher = players[0]
    deadline = watcher.until(
        lambda s: s["phase"] == "playing" and s["turn"] and s["turn"]["deadline"]
    )
    assert deadline > time.time() - 5  # a server-time deadline, not a duration
    everyone(players, lambda s: s["phase"] == "waiting" and not any(s["seats"]))
    (record,) = hands(fast, table)
    assert record.status == "finished"
    dos = [a["do"] for a in record.actions]
    assert dos == ["timeout"] * len(dos) and len(dos) >= 3
    assert books(fast).ok


def test_gathering_extends_once_then_lapses_and_stands_the_silent_up(fast: Server) -> None:
    """C-1.3: with < 2 ready when the timer ends the table gives one more period; when that
    ends too, it waits for a new «Готов» and (C-1.7) the silent players leave the table,
    while the one who answered keeps his seat."""
    table = new_table(fast, "classic", ready_seconds=FAST)
    ready, *silent = seat(fast, table, 3, 100)
    assert ready.call("table:ready") == {"ok": True}
    ready.until(lambda s: news(s, "extended"))
    ready.until(lambda s: news(s, "gathering_lapsed"))
    ready.until(lambda s: [x["name"] for x in s["seats"] if x] == [ready.name])
    assert ready.state["phase"] == "waiting"
    for p in silent:
        p.until(lambda s: s["you"]["seat"] is None and "sit" in s["you"]["can"])
    assert hands(fast, table) == []


def test_gathering_timer_starts_the_hand_with_the_ready_ones(fast: Server) -> None:
    """C-1.3's Decision: the timer ends with ≥ 2 ready, the hand starts with them; the one
    who did not answer is stood up (C-1.7) and «Пропустить» keeps the seat (C-1.4)."""
    table = new_table(fast, "classic", ready_seconds=FAST)
    a, b, skipper, silent = seat(fast, table, 4, 100)
    for p in (a, b):
        assert p.call("table:ready") == {"ok": True}
    assert skipper.call("table:skip") == {"ok": True}
    a.until(lambda s: s["phase"] == "playing")
    names = {p["name"] for p in a.hand["players"]}  # type: ignore[index]
    assert names == {a.name, b.name}
    seated = [x["name"] for x in a.state["seats"] if x]
    assert silent.name not in seated and skipper.name in seated


def test_shaha36_new_hand_opens_by_itself_and_offline_players_are_stood_up(fast: Server) -> None:
    """S-1.6: after a hand «Новая раздача» opens by itself; whoever does not press sits out
    but keeps his seat (unlike classic's C-1.7). S-1.7: offline for `offline_seconds`, a
    player is stood up and his stack goes back to the balance."""
    table = new_table(fast, "shaha36", new_hand_seconds=FAST, offline_seconds=10)
    players = seat(fast, table, 2, 1000, stack=200)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    a, b = players
    a.until(lambda s: s["phase"] == "playing")
    fold = next(p for p in players if p.name == a.hand["awaiting"][0])  # type: ignore[index]
    fold.until(lambda s: s["hand"] and s["hand"]["legal"])
    assert fold.act("fold") == {"ok": True}
    a.until(lambda s: news(s, "gathering"))
    a.until(lambda s: news(s, "gathering_lapsed"))
    assert [x["name"] for x in a.state["seats"] if x] == [a.name, b.name]
    b.close()
    a.until(lambda s: [x["name"] for x in s["seats"] if x] == [a.name])
    money = a.state["seats"][0]["money"]
    assert balances(fast, [b.name])[b.name] == 1000 - 200 + (400 - money)
    a.close()


def test_the_vote_runs_in_the_rest_of_the_proposers_turn(fast: Server) -> None:
    """C-5.3: «Делить» has no timer of its own: the deadline the other player answers by is
    the proposer's; C-5.5: agreed, the pot is split (banner «Игроки поделили банк»)."""
    table = new_table(fast, "classic")
    players = seat(fast, table, 2, 100)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    by_name = {p.name: p for p in players}
    opener = whose_turn(players)
    assert decide(players, opener, do="bet", to=10) == {"ok": True}
    answerer = whose_turn(players)
    assert answerer is not opener
    assert decide(players, answerer, do="bet", to=10) == {"ok": True}
    holder = whose_turn(players)
    assert holder is opener
    deadline = holder.state["turn"]["deadline"]
    assert {"do": "propose", "deal": "split"} in [
        {k: o[k] for k in ("do", "deal") if k in o}
        for o in holder.hand["legal"]  # type: ignore[index]
    ]
    assert holder.act("propose", deal="split") == {"ok": True}
    answerer.until(lambda s: s["hand"]["phase"] == "vote")
    assert answerer.state["turn"]["deadline"] == deadline
    assert answerer.state["turn"]["awaiting"] == [answerer.name]
    assert answerer.act("agree") == {"ok": True}
    holder.until(lambda s: s["hand"]["phase"] == "finished")
    assert any(e["kind"] == "split" for e in holder.hand["events"])  # type: ignore[index]
    assert balances(fast, list(by_name)) == dict.fromkeys(by_name, 100)
    for p in players:
        p.close()


def proposed(fast: Server) -> tuple[Player, Player]:
    """Two players in a classic hand whose turn holder has just proposed «Варить» (C-5.1):
    (the proposer, the voter), both seeing the vote."""
    table = new_table(fast, "classic")
    players = seat(fast, table, 2, 100)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    opener = whose_turn(players)
    assert decide(players, opener, do="bet", to=10) == {"ok": True}
    answerer = whose_turn(players)
    assert decide(players, answerer, do="bet", to=10) == {"ok": True}
    holder = whose_turn(players)
    assert holder.act("propose", deal="cook") == {"ok": True}
    answerer.until(lambda s: s["hand"]["phase"] == "vote")
    holder.until(lambda s: s["hand"]["phase"] == "vote")
    return holder, answerer


def test_a_proposer_who_disconnects_withdraws_the_proposal(fast: Server) -> None:
    """C-5.3: the proposer's drop cancels the vote at once (the engine's `withdraw`); his
    turn goes on with the rest of its time, and he may come back and act."""
    holder, voter = proposed(fast)
    deadline = holder.state["turn"]["deadline"]
    holder.close()
    voter.until(lambda s: s["hand"]["phase"] == "betting")
    cancelled = [e for e in voter.hand["events"] if e["kind"] == "vote_cancelled"]  # type: ignore[index]
    assert [(e["player"], e["why"]) for e in cancelled] == [(holder.name, "disconnect")]
    assert voter.state["turn"] == {"awaiting": [holder.name], "deadline": deadline}
    assert voter.hand["legal"] == []  # type: ignore[index]
    holder.reconnect()
    holder.until(lambda s: s["hand"]["phase"] == "betting")
    assert "propose" not in {o["do"] for o in holder.hand["legal"]}  # type: ignore[index]
    assert holder.act("fold") == {"ok": True}  # C-5.2: one proposal per turn, then he folds
    voter.until(lambda s: s["hand"]["phase"] == "finished")
    for p in (holder, voter):
        p.close()


def test_a_voter_who_disconnects_cancels_the_vote(fast: Server) -> None:
    """C-5.3: a disconnect cancels the proposal; the proposer's turn goes on (C-5.2)."""
    holder, answerer = proposed(fast)
    answerer.close()
    holder.until(lambda s: s["hand"]["phase"] == "betting" and holder.name in s["hand"]["awaiting"])
    events = holder.hand["events"]  # type: ignore[index]
    assert {"kind": "refuse", "player": answerer.name} in [
        {"kind": e["kind"], "player": e.get("player")} for e in events
    ]
    assert "propose" not in {o["do"] for o in holder.hand["legal"]}  # type: ignore[index]
    assert {"fold", "lock"} <= {o["do"] for o in holder.hand["legal"]}  # type: ignore[index]
    holder.close()
