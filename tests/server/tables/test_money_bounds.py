"""Numbers and money at the socket level, with a real `svara serve` and real sockets:
integers beyond ±(2⁵³ − 1) are refused before they reach the database (docs/protocol.md),
and an account plays for money at one table at a time (docs/rules.md, «Money at one table
at a time»): refused with code `money`, never `server`."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ..conftest import WAIT, Server, unique_name
from ..tablekit import (
    Player,
    balances,
    books,
    everyone,
    grant,
    new_table,
    play_hand,
    refused,
    whose_turn,
)

HUGE = 2**63


def seated(server: Server, table_id: int, name: str, money: int, **sit: Any) -> Player:
    player = Player(server, table_id, unique_name(name))
    grant(server, player.name, money)
    player.join()
    player.sit(**sit)
    player.until(lambda s: any(x and x["name"] == player.name for x in s["seats"]))
    return player


@pytest.mark.parametrize(
    ("event", "fields"),
    [
        ("table:join", {"table": HUGE}),
        ("table:join", {"table": -HUGE}),
        ("table:join", {"since": HUGE}),
        ("table:sit", {"seat": HUGE}),
        ("table:sit", {"stack": 2**53}),
        ("table:act", {"version": HUGE, "do": "fold"}),
        ("table:chat", {"phrase": HUGE}),
        ("table:bots", {"table": HUGE, "fill": True}),
    ],
)
def test_integers_beyond_the_safe_range_are_refused(
    fast: Server, event: str, fields: dict[str, Any]
) -> None:
    """A table id of 2⁶³ answered «internal error» (SQLite's OverflowError): now every
    integer field is bounded at the protocol gate, with a reason, and nothing changes."""
    table = new_table(fast, "classic")
    player = seated(fast, table, "Ёж", 500)
    error = refused(player, event, {"table": table, **fields})
    assert "must be between" in error["reason"], error
    assert player.call("table:stand") == {"ok": True}
    player.close()


def test_money_in_a_hand_at_one_table_refuses_ready_at_another(fast: Server) -> None:
    """An account may sit at two classic tables, but its balance plays one hand at a time:
    «Готов» at the second table during a hand at the first is refused (`money`), and is
    accepted once that hand ended."""
    first, second = new_table(fast, "classic"), new_table(fast, "classic")
    ivan = seated(fast, first, "Иван", 500)
    maria = seated(fast, first, "Мария", 500)
    ez = seated(fast, second, "Ёж", 500)
    assert ivan.client.call("table:join", {"table": second})["ok"]
    assert ivan.client.call("table:sit", {"table": second}) == {"ok": True}
    for p in (ivan, maria):
        assert p.call("table:ready") == {"ok": True}
    everyone([ivan, maria], lambda s: s["phase"] == "playing")
    reply = ivan.client.call("table:ready", {"table": second})
    assert reply["ok"] is False and reply["code"] == "money", reply
    assert f"table {first}" in reply["error"]
    assert ez.call("table:ready") == {"ok": True}
    play_hand([ivan, maria], random.Random(7))
    assert ivan.client.call("table:ready", {"table": second}) == {"ok": True}
    playing = ez.until(lambda s: s["phase"] == "playing" and s["hand"]["players"])
    assert {p["name"] for p in playing} == {ivan.name, ez.name}
    assert books(fast).ok
    for p in (ivan, maria, ez):
        p.close()


def test_a_stack_at_one_table_refuses_a_seat_at_another(fast: Server) -> None:
    """S-1.5: a stack is money committed at its table; sitting down at another money table
    is refused (`money`) until he stands up there, and his balance is untouched."""
    first, second = new_table(fast, "shaha36"), new_table(fast, "svara32")
    maria = seated(fast, first, "Мария", 1000)
    before = balances(fast, [maria.name])[maria.name]
    assert maria.client.call("table:join", {"table": second})["ok"]
    reply = maria.client.call("table:sit", {"table": second})
    assert reply["ok"] is False and reply["code"] == "money", reply
    assert balances(fast, [maria.name])[maria.name] == before
    assert maria.call("table:stand") == {"ok": True}
    assert maria.client.call("table:sit", {"table": second}) == {"ok": True}
    assert books(fast).ok
    maria.close()


def test_a_balance_gone_during_the_hand_is_refused_with_money_not_server(fast: Server) -> None:
    """The money a classic hand plays from moved away (another table, another process, an
    admin's negative grant): the bet is refused with `money` and nothing changes — it used
    to be `server` with a logged traceback — and the hand plays on."""
    table = new_table(fast, "classic")
    players = [seated(fast, table, n, 500) for n in ("Иван", "Мария")]
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    actor = whose_turn(players)
    bet = next(o for o in actor.hand["legal"] if o["do"] == "bet")  # type: ignore[index]
    have = balances(fast, [actor.name])[actor.name]
    grant(fast, actor.name, -have)
    reply = actor.act("bet", bet["to"])
    assert reply["ok"] is False and reply["code"] == "money", reply
    assert actor.act("fold") == {"ok": True}
    everyone(players, lambda s: s["hand"]["phase"] == "finished")
    assert books(fast).ok
    assert not [line for line in fast.output if "Traceback" in line]
    for p in players:
        p.close()


@pytest.mark.parametrize("seats", [str(HUGE), "99999999999999999999999", "-3", "1e3"])
def test_the_lobby_form_bounds_its_numbers(fast: Server, seats: str) -> None:
    """The lobby's «Новый стол» form: a seat count out of C-1.1's 2..8 is a 400 with the
    form's message, and no table is made."""
    player = Player(fast, 0, unique_name("Мария"))
    before = player.browser.http.get(fast.url + "/", timeout=WAIT).text.count("/table/")
    form = {"name": "Пятница", "variant": "classic", "seats": seats}
    answer = player.browser.post_form("/tables", form, token_from="/")
    assert answer.status_code == 400 and "Проверьте поля формы" in answer.text
    assert 'data-i18n="lobby.check_fields"' in answer.text  # in the page's own language
    after = player.browser.http.get(fast.url + "/", timeout=WAIT).text.count("/table/")
    assert after == before
    player.close()


@pytest.mark.parametrize(
    "path",
    [
        f"/table/{2**63}",
        f"/table/{2**53}",
        "/table/0",
        f"/hands/{2**63}",
        f"/hands/{2**63}.json",
        f"/hands/{2**63}.txt",
        f"/table/{2**63}/settle",
    ],
)
def test_a_page_beyond_the_ids_is_not_found(fast: Server, path: str) -> None:
    """A page's id is bounded like the sockets' (`<id:…>`): 2⁶³ was an HTTP 500 (SQLite's
    OverflowError), now it is the 404 of a table or hand that does not exist."""
    player = Player(fast, 0, unique_name("Иван"))
    answer = player.browser.http.get(fast.url + path, timeout=WAIT)
    assert answer.status_code == 404
    player.close()


def test_the_lobby_form_says_the_games_own_seat_range(fast: Server) -> None:
    """Seven seats fit the form's 2..8 but not shaha36's 2..6 (S-1.2): the page says the
    game's range in a keyed sentence (translated on English and Bulgarian pages), not the
    rule checker's English, and no table is made."""
    player = Player(fast, 0, unique_name("Стоян"))
    before = player.browser.http.get(fast.url + "/", timeout=WAIT).text.count("/table/")
    form = {"name": "Седем", "variant": "shaha36", "seats": "7"}
    answer = player.browser.post_form("/tables", form, token_from="/")
    assert answer.status_code == 400
    assert 'data-i18n="lobby.seats_range"' in answer.text
    assert "Мест за этим столом: от 2 до 6" in answer.text and "out of range" not in answer.text
    assert player.browser.http.get(fast.url + "/", timeout=WAIT).text.count("/table/") == before
    player.close()
