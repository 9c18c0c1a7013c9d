"""The table's Socket.IO protocol (docs/protocol.md «Table»): versions and resync, refusals
that change nothing, reconnect and takeover, the queue, the dark choice, the chat."""

from __future__ import annotations

import random

from ..conftest import Browser, Server
from ..tablekit import (
    Player,
    books,
    everyone,
    grant,
    new_table,
    play_hand,
    refused,
    seat,
)


def started(server: Server, count: int = 3, variant: str = "classic") -> list[Player]:
    table = new_table(server, variant)
    players = seat(server, table, count, 500)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    everyone(players, lambda s: s["phase"] == "playing")
    return players


def actor(players: list[Player]) -> Player:
    awaiting = players[0].until(lambda s: s["hand"]["awaiting"])
    return next(p for p in players if p.name == awaiting[0])


def test_stale_and_repeated_actions_are_refused_with_a_resync(fast: Server) -> None:
    """docs/protocol.md, «table:act»: an action names the version it answers; a stale or repeated
    one is not applied twice but answered with `error` (code stale) and the current state."""
    players = started(fast)
    p = actor(players)
    legal = p.hand["legal"]  # type: ignore[index]
    fold = next(o for o in legal if o["do"] == "fold")
    old = p.state["version"]
    assert p.act(fold["do"]) == {"ok": True}
    again = p.client.call("table:act", {"table": p.table, "version": old, "do": "fold"})
    assert again["code"] == "stale"
    resync = p.event("table:state")
    assert resync["version"] > old
    assert p.event("error")["code"] == "stale"
    history = [a["do"] for a in resync["history"]]
    assert history.count("fold") == 1
    for x in players:
        x.close()


def test_malformed_and_out_of_turn_events_get_an_error_and_change_nothing(fast: Server) -> None:
    """docs/protocol.md, «error»: unknown event, wrong types, unknown table, out of turn, not
    seated."""
    players = started(fast)
    p = actor(players)
    other = next(x for x in players if x is not p)
    table = p.table
    refused(p, "table:fly", {"table": table})
    refused(p, "table:act", {"table": table, "version": "1", "do": "fold"})
    refused(p, "table:act", {"table": table, "do": "fold"})
    refused(p, "table:act", {"table": table, "version": p.state["version"], "do": 3})
    refused(p, "table:act", ["not", "an", "object"])
    refused(p, "table:join", {"table": 10_000}, "not_found")
    refused(p, "table:act", {"table": table, "version": p.state["version"], "do": "fly"}, "illegal")
    refused(p, "table:act", {"table": table, "version": p.state["version"], "do": "bet", "to": 7},
            "illegal")  # fmt: skip
    refused(p, "table:act", {"table": table, "version": p.state["version"], "do": "timeout"},
            "illegal")  # fmt: skip
    refused(
        p, "table:act", {"table": table, "version": p.state["version"], "do": "withdraw"}, "illegal"
    )  # fmt: skip  (C-5.3: declared by the server when a proposer drops)
    other.drain()
    refused(other, "table:act", {"table": table, "version": other.state["version"], "do": "fold"},
            "not_your_turn")  # fmt: skip
    refused(p, "table:ready", {"table": table}, "not_now")
    stranger = Player(fast, table)
    stranger.join()
    refused(stranger, "table:act", {"table": table, "version": stranger.state["version"],
            "do": "fold"}, "not_seated")  # fmt: skip
    refused(stranger, "table:stand", {"table": table}, "not_seated")
    for x in [*players, stranger]:
        x.close()


def test_reconnect_mid_hand_keeps_seat_and_cards_and_sends_what_was_missed(fast: Server) -> None:
    """C-8.1: a player drops mid-hand; the others play on; his new socket gets his seat,
    his cards and the current state at once, and `table:join` with the version he last saw
    gives him the events he missed."""
    players = started(fast, 4)
    gone = next(x for x in players if x.name != players[0].hand["awaiting"][0])  # type: ignore[index]
    cards = next(x["cards"] for x in gone.hand["players"] if x["name"] == gone.name)  # type: ignore[index]
    last_seen = gone.state["version"]
    gone.client.close()
    rest = [x for x in players if x is not gone]
    rest[0].until(
        lambda s: not next(x for x in s["seats"] if x and x["name"] == gone.name)["connected"]
    )
    mover = actor(rest)
    assert mover.act("pass" if any(o["do"] == "pass" for o in mover.hand["legal"]) else "fold") == {
        "ok": True
    }  # type: ignore[index]
    gone.client = gone.browser.socket(gone.table)
    gone.state = {}
    state = gone.event("table:state")  # sent on connect, before any request
    assert state["you"]["seat"] is not None
    mine = next(x for x in state["hand"]["players"] if x["name"] == gone.name)
    assert mine["cards"] == cards
    reply = gone.join(since=last_seen)
    assert reply["missed"] is not None
    assert any(e["kind"] in ("pass", "fold") for e in reply["missed"])
    rest[0].until(
        lambda s: next(x for x in s["seats"] if x and x["name"] == gone.name)["connected"]
    )
    for x in players:
        x.close()


def test_takeover_moves_the_table_to_the_new_connection(fast: Server) -> None:
    """C-8.2: a second page of the same table (another device, another tab) takes it over:
    the old socket is told which table and why, and closed; the new one gets the table
    state with the player's seat and cards, and he plays on from it. The old page's
    «Играть здесь» connects it again, which takes the table back the same way."""
    players = started(fast)
    p = players[1]
    cards = next(x["cards"] for x in p.hand["players"] if x["name"] == p.name)  # type: ignore[index]
    elsewhere = Browser(fast.url)
    assert elsewhere.login(p.name, "correct horse").status_code == 302
    old = p.client
    p.client = elsewhere.socket(p.table)
    p.state = {}
    state = p.event("table:state")
    assert next(x for x in state["hand"]["players"] if x["name"] == p.name)["cards"] == cards
    assert old.wait("session:taken_over") == {"reason": "opened elsewhere", "table": p.table}
    assert old.disconnected.wait(20)
    # «Играть здесь» on the old page: its browser connects for the table again.
    other = p.client
    p.client = p.browser.socket(p.table)
    p.state = {}
    p.event("table:state")
    assert other.wait("session:taken_over") == {"reason": "opened elsewhere", "table": p.table}
    assert other.disconnected.wait(20)
    play_hand(players, random.Random(3))
    assert books(fast).ok
    for x in players:
        x.close()


def test_a_takeover_follows_the_account_whatever_case_its_name_is_typed_in(
    fast: Server,
) -> None:
    """C-8.2 for «Иван», logged in on another device as «ИВАН…» and then as «иван…»: one
    account (its name key, app/names.py), so each new page of the table takes the seat
    over, and the seat keeps the name as he wrote it."""
    table = new_table(fast, "classic")
    ivan, maria = seat(fast, table, 2, 500, names=("Иван", "Мария"))
    for typed in (ivan.name.upper(), ivan.name.lower()):
        device = Browser(fast.url)
        assert device.login(typed, "correct horse").status_code == 302
        old = ivan.client
        ivan.client = device.socket(table)
        ivan.state = {}
        state = ivan.event("table:state")
        assert old.wait("session:taken_over") == {"reason": "opened elsewhere", "table": table}
        assert state["you"]["seat"] is not None
        assert [x["name"] for x in state["seats"] if x] == [ivan.name, maria.name]
    for x in (ivan, maria):
        x.close()


def test_the_lobby_in_another_tab_takes_nothing_over(fast: Server) -> None:
    """C-8.2: a second tab of the same browser on the lobby (or a table page of another
    table) is not a second device: the table's connection is not told anything, stays
    connected, and the player plays the hand on from it; the lobby gets no table's state."""
    players = started(fast)
    p = players[1]
    lobby = p.browser.socket()  # the same browser's session: another tab
    assert lobby.call("lobby:join") == {"ok": True}
    lobby.wait("lobby:state")
    another = p.browser.socket(p.table + 1000)  # the page of another table
    assert p.call("table:join")["ok"]  # the table's socket is current: answered, not refused
    final = play_hand(players, random.Random(4))
    assert final["phase"] == "finished"
    seat_of = next(x for x in p.state["seats"] if x and x["name"] == p.name)
    assert seat_of["connected"]
    assert lobby.call("lobby:join") == {"ok": True}  # and the lobby's is current too
    assert p.client.sio.connected and lobby.sio.connected and another.sio.connected
    heard = [name for name, _ in [*p.client.seen, *p.received, *list(lobby.events.queue)]]
    assert "session:taken_over" not in heard
    assert not any(name == "table:state" for name, _ in list(lobby.events.queue))
    for x in [*players, lobby, another]:
        x.close()


def test_queue_is_first_in_first_out(fast: Server) -> None:
    """C-1.2: a full table queues newcomers; a freed seat goes to the head of the queue."""
    table = new_table(fast, "classic", seats=2)
    a, b = seat(fast, table, 2, 100)
    first, second = Player(fast, table), Player(fast, table)
    for q in (first, second):
        grant(fast, q.name, 100)  # a place in the queue needs the ante too (docs/rules.md)
        q.join()
        q.sit()
    a.until(lambda s: s["queue"] == [first.name, second.name])
    assert second.until(lambda s: s["you"]["queue"]) == 2
    assert second.state["you"]["can"] == ["stand"]  # leave the queue
    assert a.call("table:stand") == {"ok": True}
    b.until(lambda s: [x["name"] for x in s["seats"] if x] == [first.name, b.name])
    assert b.state["queue"] == [second.name]
    assert second.call("table:stand") == {"ok": True}
    b.until(lambda s: s["queue"] == [])
    for x in (a, b, first, second):
        x.close()


def test_dark_choice_only_for_the_candidate_and_active_with_four(fast: Server) -> None:
    """C-1.5/C-1.6: only the player left of the presumed dealer sees «Темнить»; with four
    participants it becomes the hand's dark: he pays 15 more and does not see his cards."""
    table = new_table(fast, "classic")
    players = seat(fast, table, 4, 100)
    for p in players:
        p.drain()
    candidates = [p for p in players if "dark" in p.state["you"]["can"]]
    assert len(candidates) == 1
    dark = candidates[0]
    other = next(p for p in players if p is not dark)
    refused(other, "table:dark", {"table": table}, "not_now")
    assert dark.call("table:dark") == {"ok": True}
    for p in players:
        if p is not dark:
            assert p.call("table:ready") == {"ok": True}
    dark.until(lambda s: s["phase"] == "playing")
    mine = next(x for x in dark.hand["players"] if x["name"] == dark.name)  # type: ignore[index]
    assert mine["dark"] and mine["cards"] is None  # C-4.19
    assert mine["paid"] == 25
    for p in players:
        p.close()


def test_table_chat_is_bounded_rate_limited_and_kept_for_newcomers(fast: Server) -> None:
    """C-8.4: plain text, at most CHAT_MAX_LENGTH characters, CHAT_RATE per window; quick
    phrases by number; the last lines are sent to whoever joins."""
    table = new_table(fast, "classic")
    a = Player(fast, table)
    a.join()
    assert a.call("table:chat", text="  привет   всем ") == {"ok": True}
    assert a.event("table:chat")["text"] == "привет всем"
    assert a.call("table:chat", phrase=1) == {"ok": True}
    line = a.event("table:chat")
    assert line["phrase"] == 1 and line["text"]
    refused(a, "table:chat", {"table": table, "text": "x" * 301}, "chat")
    refused(a, "table:chat", {"table": table, "phrase": 99}, "chat")
    refused(a, "table:chat", {"table": table, "text": "   "}, "chat")
    for i in range(3):
        assert a.call("table:chat", text=f"line {i}") == {"ok": True}
    refused(a, "table:chat", {"table": table, "text": "one too many"}, "chat")
    b = Player(fast, table)
    reply = b.join()
    assert [x["text"] for x in reply["chat"]][-3:] == ["line 0", "line 1", "line 2"]
    outsider = Player(fast, table)
    refused(outsider, "table:chat", {"table": table, "text": "hi"}, "not_joined")
    for x in (a, b, outsider):
        x.close()


def test_shaha36_chat_is_closed_during_a_hand(fast: Server) -> None:
    """S-1.7's Decision: in shaha36 the table chat sends only between hands."""
    players = started(fast, 2, "shaha36")
    refused(players[0], "table:chat", {"table": players[0].table, "text": "hi"}, "not_now")
    for x in players:
        x.close()


def test_grants_after_sitting_are_seen_when_answering(fast: Server) -> None:
    """C-1.8: a player without the ante cannot get ready; a later grant lets him."""
    table = new_table(fast, "classic")
    (p,) = seat(fast, table, 1, 10)
    grant(fast, p.name, -10)  # taken while he sits (a seat needs the ante: docs/rules.md)
    refused(p, "table:ready", {"table": table}, "money")
    grant(fast, p.name, 10)
    assert p.call("table:ready") == {"ok": True}
    p.close()


def test_the_dark_is_an_ordinary_ready_when_the_dealer_changed(fast: Server) -> None:
    """C-1.6: the presumed dealer leaves after the dark was chosen, so dealer and candidate
    change: the hand starts with five, but the choice counts as «Готов» and costs nothing."""
    table = new_table(fast, "classic")
    players = seat(fast, table, 6, 100)
    for p in players:
        p.drain()
    dealer = next(p for p in players if p.name == players[0].state["next_dealer"])
    (dark,) = [p for p in players if "dark" in p.state["you"]["can"]]
    assert dark.call("table:dark") == {"ok": True}
    assert dealer.call("table:stand") == {"ok": True}
    rest = [p for p in players if p is not dealer]
    everyone(rest, lambda s: s["next_dealer"] != dealer.name)
    for p in rest:
        if p is not dark:
            assert p.call("table:ready") == {"ok": True}
    dark.until(lambda s: s["phase"] == "playing")
    mine = next(x for x in dark.hand["players"] if x["name"] == dark.name)  # type: ignore[index]
    assert not mine["dark"] and mine["paid"] == 10
    for p in players:
        p.close()
