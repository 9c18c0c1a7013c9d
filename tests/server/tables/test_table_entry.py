"""Entering a table (C-1.2: «Свободное место занимается при входе») and «No money, no seat»
(docs/rules.md), over real sockets: `table:join` with `sit` seats the player or queues him,
a returning player keeps his seat, a spectator enters without `sit`; a seat, a place in the
queue and an answer need the table's minimum, and the refusal says how much is missing; a
seated player whose money no longer pays the ante is stood up when the next gathering
opens."""

from __future__ import annotations

import random
import re
from typing import Any

from ..conftest import WAIT, Browser, Server, unique_name
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

INVITE = re.compile(r'value="[^"]*(/invite/[^"]+)"')


def seated(state: dict[str, Any]) -> dict[str, int]:
    return {s["name"]: s["seat"] for s in state["seats"] if s}


def enter(player: Player, money: int, server: Server) -> dict[str, Any]:
    """The player gets `money` and opens the table page (`table:join` with `sit`); the
    join's answer about the seat."""
    if money:
        grant(server, player.name, money)
    reply = player.call("table:join", sit=True)
    assert reply["ok"], reply
    player._keep(reply["state"])
    return reply["sit"]


def test_entering_takes_a_free_seat_a_full_table_queues_and_a_seat_is_kept(fast: Server) -> None:
    """C-1.2: Иван and Мария enter a two-seat table and sit at once; Ёж enters the full
    table and is queued; entering again (a reload) keeps each one's seat or place; Вера
    enters as a spectator (no `sit`) and sits nowhere."""
    table = new_table(fast, "classic", seats=2)
    ivan, maria, yozh, vera = (
        Player(fast, table, unique_name(n)) for n in ("Иван", "Мария", "Ёж", "Вера")
    )
    assert enter(ivan, 100, fast) == {"ok": True}
    assert ivan.state["you"]["seat"] == 0
    assert enter(maria, 100, fast) == {"ok": True}
    assert maria.state["you"]["seat"] == 1
    assert enter(yozh, 100, fast) == {"ok": True}
    assert yozh.state["you"] == {
        "name": yozh.name,
        "seat": None,
        "queue": 1,
        "can": ["stand"],
        "stood": None,
    }
    vera.join()
    assert vera.state["you"]["seat"] is None and vera.state["you"]["queue"] is None
    assert "sit" in vera.state["you"]["can"]  # she may still sit by choice
    ivan.until(lambda s: s["queue"] == [yozh.name])
    for p in (ivan, yozh):  # a reload: the page enters again
        p.close()
        p.client = p.browser.socket()
        p.state = {}
        assert enter(p, 0, fast) == {"ok": True}
    assert ivan.state["you"]["seat"] == 0
    assert yozh.state["you"]["queue"] == 1
    assert seated(ivan.state) == {ivan.name: 0, maria.name: 1}
    assert ivan.state["queue"] == [yozh.name]
    maria.call("table:stand")  # C-1.2: the freed seat goes to the head of the queue
    yozh.until(lambda s: s["you"]["seat"] == 1)
    for p in (ivan, maria, yozh, vera):
        p.close()


def test_an_invited_guest_enters_a_private_table_and_sits(fast: Server) -> None:
    """Private tables: the invite link makes Мария a guest, and entering seats her as at any
    table; someone without the link is told there is no such table, seat or not."""
    creator = Browser(fast.url)
    creator.register(unique_name("Иван"))
    made = creator.post_form(
        "/tables", {"name": "Пятница", "variant": "classic", "private": "y"}, token_from="/"
    )
    assert made.status_code == 302, made.text
    lobby = creator.http.get(creator.url + "/", timeout=WAIT).text
    link = INVITE.findall(lobby)[-1]
    table = int(re.findall(r'<li class="private-row" data-table-id="(\d+)">', lobby)[-1])
    maria = Player(fast, table, unique_name("Мария"))
    stranger = Player(fast, table, unique_name("Ёж"))
    grant(fast, stranger.name, 100)
    refused(stranger, "table:join", {"table": table, "sit": True}, "not_found")
    assert maria.browser.http.get(fast.url + link, timeout=WAIT).status_code == 200
    assert enter(maria, 100, fast) == {"ok": True}
    assert maria.state["you"]["seat"] == 0
    maria.close()
    stranger.close()


def test_no_money_no_seat_and_the_refusal_says_how_much_is_missing(fast: Server) -> None:
    """docs/rules.md, «No money, no seat»: with 0 ₽ Ёж enters a classic table and only
    watches — the answer says the ante (10) is missing; with 4 ₽ «Сесть за стол» is
    refused (`money`, 6 missing) and changes nothing, also at a full table (no queueing
    without the money); at a shaha36 table the smallest stack is the minimum."""
    table = new_table(fast, "classic", seats=2)
    yozh = Player(fast, table, unique_name("Ёж"))
    assert enter(yozh, 0, fast) == {
        "ok": False,
        "error": "a seat needs the ante, 10: it lacks 10",
        "code": "money",
        "need": 10,
        "short": 10,
    }
    assert yozh.state["you"]["seat"] is None and yozh.state["seats"] == [None, None]
    grant(fast, yozh.name, 4)
    error = refused(yozh, "table:sit", {"table": table}, "money")
    assert (error["need"], error["short"]) == (10, 6)
    ivan, maria = seat(fast, table, 2, 100)
    yozh.until(lambda s: len(seated(s)) == 2)
    error = refused(yozh, "table:sit", {"table": table}, "money")  # full: the queue needs it too
    assert (error["need"], error["short"]) == (10, 6)
    assert yozh.state["queue"] == []
    shaha = new_table(fast, "shaha36")
    vera = Player(fast, shaha, unique_name("Вера"))
    answer = enter(vera, 150, fast)
    need = 20 * vera.state["info"]["ante"]  # S-1.5: 20 antes at least
    assert answer["code"] == "money" and (answer["need"], answer["short"]) == (need, need - 150)
    assert vera.state["you"]["seat"] is None
    assert books(fast).ok
    for p in (yozh, ivan, maria, vera):
        p.close()


def test_a_player_who_lost_his_money_between_hands_is_stood_up_at_the_next_gathering(
    fast: Server,
) -> None:
    """docs/rules.md, «No money, no seat»: Ёж's money went (an administrator took it) while
    he sat; his «Готов» is refused with what is missing, his seat holds nothing up: Иван's
    «Готов» opens the gathering and stands Ёж up (`stood`, why `money`), and the hand starts
    as soon as the others have answered."""
    table = new_table(fast, "classic")
    ivan, maria, yozh = (Player(fast, table, unique_name(n)) for n in ("Иван", "Мария", "Ёж"))
    for p in (ivan, maria, yozh):
        assert enter(p, 100, fast) == {"ok": True}
    everyone([ivan, maria, yozh], lambda s: len(seated(s)) == 3)
    grant(fast, yozh.name, -95)
    error = refused(yozh, "table:ready", {"table": table}, "money")
    assert (error["need"], error["short"]) == (10, 5)
    assert ivan.call("table:ready") == {"ok": True}
    state = yozh.until(lambda s: s["you"]["seat"] is None and s)
    stood = [e for e in state["news"] if e["kind"] == "stood"]
    assert stood == [{"kind": "stood", "player": yozh.name, "why": "money"}]
    assert maria.call("table:ready") == {"ok": True}
    everyone([ivan, maria], lambda s: s["phase"] == "playing")
    assert {p["name"] for p in ivan.hand["players"]} == {ivan.name, maria.name}  # type: ignore[index]
    for p in (ivan, maria, yozh):
        p.close()


def test_a_stack_below_the_ante_stands_up_when_the_hand_ends(fast: Server) -> None:
    """docs/rules.md, «No money, no seat», shaha36: the stacks are one ante each (S-1.5 with
    `buy_in_min` = `buy_in_max` = 1), so whoever loses a hand has nothing left; when it ends
    («Новая раздача» opens the next gathering, S-1.6) he is stood up, his seat is free, and
    the money adds up."""
    table = new_table(fast, "shaha36", seats=3, buy_in_min=1, buy_in_max=1)
    players = [Player(fast, table, unique_name(n)) for n in ("Иван", "Мария")]
    for p in players:
        assert enter(p, 100, fast) == {"ok": True}
    everyone(players, lambda s: len(seated(s)) == 2)
    rng = random.Random(15)
    last = None
    for _ in range(10):  # a split leaves both with their ante: play another
        for p in players:
            assert p.call("table:ready") == {"ok": True}
        # All in from the antes, the hand is mostly over as it starts (no betting, S-6.2).
        state = players[0].until(lambda s, h=last: s["hand"] and s["hand"]["id"] != h and s)
        if state["phase"] == "playing":
            play_hand(players, rng)
        last = state["hand"]["id"]
        everyone(
            players, lambda s, h=last: (s["hand"] or {}).get("id") == h and s["phase"] != "playing"
        )
        if len(seated(players[0].state)) < 2:
            break
    else:
        raise AssertionError("nobody lost his stack in ten hands")
    (broke,) = [p for p in players if p.name not in seated(players[0].state)]
    broke.until(lambda s: s["you"]["seat"] is None)
    news = [e for name, data in broke.received if name == "table:state" for e in data["news"]]
    assert {"kind": "stood", "player": broke.name, "why": "money"} in news
    assert books(fast).ok
    for p in players:
        p.close()
