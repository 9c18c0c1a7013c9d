"""Bots at live tables (docs/rules.md, «Bots»), against a real `svara serve` and real socket
clients.

The server runs with fast timers and `SVARA_BOT_THINK=0`, so a bot answers as soon as the
scheduler fires; every wait below is on received events (tablekit.Player.until).
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from app.lobby.service import create_table
from app.models import HandRecord, Table, User

from ..conftest import ASYNC_MODES, WAIT, Server, start_server, stopped, unique_name
from ..tablekit import (
    SLOW_TIMERS,
    Player,
    admin,
    balances,
    books,
    bots_server,
    database,
    fund_house,
    grant,
)

PRACTICE_BOT = "Гэри"
TABLE_URL = re.compile(r"/table/(\d+)$")


@pytest.fixture(scope="module", params=ASYNC_MODES)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    running = bots_server(Path(tmp_path_factory.mktemp(f"bots-{request.param}")), request.param)
    with stopped(running):
        fund_house(running, 1_000_000)  # the bots at money tables play with the house's money
        yield running
    assert running.process.returncode in (0, -signal.SIGTERM), "".join(running.output)


def seats(state: dict[str, Any]) -> dict[str, int]:
    return {s["name"]: s["money"] for s in state["seats"] if s}


def practice(player: Player) -> int:
    """One click on «Практика» in the lobby: the table's id, the player seated there."""
    lobby = player.browser.http.get(player.browser.url + "/", timeout=20).text
    assert 'action="/practice"' in lobby and "Играть с Гэри" in lobby
    reply = player.browser.post_form("/practice", {}, token_from="/")
    assert reply.status_code == 302, reply.text
    found = TABLE_URL.search(reply.headers["Location"])
    assert found, reply.headers["Location"]
    return int(found.group(1))


def all_in(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """The person's plan: see his cards, then push everything in, else call."""
    options = {o["do"]: o for o in legal}
    if "look" in options:
        return {"do": "look"}
    if "raise" in options:
        return {"do": "raise", "to": options["raise"]["max_to"]}
    return {"do": "call"}


def test_a_person_plays_a_practice_match_against_gary_to_the_end(server: Server) -> None:
    """B-1.4: one click seats the person against «Гэри» with 500 practice chips each (ante
    10); they play hands until one has no chips; the person's real balance never moves
    and the books stay balanced."""
    person = Player(server, 0)
    grant(server, person.name, 70)
    person.table = practice(person)
    person.join()
    state = person.until(lambda s: len(seats(s)) == 2 and s)
    assert seats(state) == {person.name: 500, PRACTICE_BOT: 500}
    assert state["info"]["variant"] == "svara32-practice" and state["info"]["ante"] == 10
    assert practice(person) == person.table  # the same table while it is open
    played = set()
    for _ in range(400):
        state = person.state
        money = seats(state)
        if state["phase"] != "playing" and 0 in money.values():
            break
        if state["phase"] != "playing" and "ready" in state["you"]["can"]:
            reply = person.call("table:ready")
            assert reply == {"ok": True} or reply.get("code") == "not_now", reply  # a race
        elif person.my_turn():
            played.add(state["hand"]["id"])
            reply = person.act(**all_in(state["hand"]["legal"]))
            assert reply == {"ok": True} or reply.get("code") == "stale", reply
        else:
            person.until(lambda s, v=state["version"]: s["version"] > v)
            continue
        person.until(lambda s, v=state["version"]: s["version"] > v)
    else:
        raise AssertionError(f"the match did not end: {person.state}")
    money = seats(person.state)
    assert sorted(money.values()) == [0, 1000]  # one has everything, chips conserved
    if money[person.name] == 0:  # out of practice chips: no more hands for him
        assert person.call("table:ready")["code"] == "money"
    assert played, "the person never had a decision"
    assert balances(server, [person.name]) == {person.name: 70}
    assert practice(person) == person.table  # one more click: a new match, 500 each again
    person.until(lambda s: seats(s) == {person.name: 500, PRACTICE_BOT: 500})
    assert person.browser.login(PRACTICE_BOT, "correct horse").status_code == 401
    assert books(server).ok, books(server).problems
    db = database(server)
    with db.session() as s:
        finished = s.exec(select(HandRecord).where(HandRecord.table_id == person.table)).all()
        assert finished and all(h.status == "finished" for h in finished)
        bot = s.exec(select(User).where(User.name == PRACTICE_BOT)).one()
        assert bot.password_hash == "!bot"  # no password opens the bot's account
    db.dispose()
    person.close()


def test_bots_fill_the_free_seats_and_step_aside_for_a_person(server: Server) -> None:
    """The creator's toggle fills the free seats with bots but one (no rake: S-8.2), which
    the creator takes on entering (docs/rules.md, «Bots»); a person who wants a seat at the
    full table gets one between hands; bots play hands through the runtime; the creator
    sends them away."""
    creator = Player(server, 0)
    db = database(server)
    with db.session() as s:
        user = s.exec(select(User).where(User.name == creator.name)).one()
        table = create_table(
            s, "bots", "shaha36", seats=3, rules=SLOW_TIMERS["shaha36"], created_by=user.id
        )
        creator.table = table.id  # type: ignore[assignment]
    other = Player(server, creator.table)
    other.join()
    refused = other.call("table:bots", fill=True)
    assert refused["ok"] is False and "creator" in refused["error"]
    creator.join()
    lobby = creator.browser.http.get(creator.browser.url + "/", timeout=WAIT).text
    toggle = f'action="/tables/{creator.table}/bots"'
    assert toggle in lobby and "Заполнить места ботами" in lobby  # the creator's switch
    other_lobby = other.browser.http.get(other.browser.url + "/", timeout=WAIT).text
    assert toggle not in other_lobby
    filled = creator.browser.post_form(f"/tables/{creator.table}/bots", {"fill": "1"}, "/")
    assert filled.status_code == 302, filled.text
    state = creator.until(lambda s: len(seats(s)) == 2 and s)
    lobby = creator.browser.http.get(creator.browser.url + "/", timeout=WAIT).text
    assert "ботов: 2" in lobby and "Убрать ботов" in lobby
    assert all(m == 1000 for m in seats(state).values())  # S-1.5: a full stack each
    with db.session() as s:
        assert s.get(Table, creator.table).rules["bots"] is True  # type: ignore[union-attr]
    grant(server, creator.name, 500)
    assert creator.call("table:join", sit=True)["sit"] == {"ok": True}  # a seat, no queue
    state = creator.until(lambda s: creator.name in seats(s) and s)
    assert len(seats(state)) == 3 and not state["queue"]
    grant(server, other.name, 500)
    other.sit()  # the table is full: he queues, and a bot stands up for him between hands
    state = other.until(lambda s: other.name in seats(s) and s)
    assert len(seats(state)) == 3 and not state["queue"]
    assert other.call("table:stand") == {"ok": True}
    again = creator.call("table:bots", fill=True)  # a person sits: the last seat may go too
    assert again["ok"] and len(again["bots"]) == 1, again
    creator.until(lambda s: len(seats(s)) == 3)
    assert creator.call("table:ready") == {"ok": True}  # shaha36: «Новая раздача»
    hand = creator.until(lambda s: s["phase"] == "playing" and s["hand"]["id"])
    for _ in range(100):
        if creator.state["phase"] != "playing":
            break
        if creator.my_turn():  # he gives up: folds, or skips a Svara buy-in, or mucks
            dos = {o["do"] for o in creator.hand["legal"]}  # type: ignore[index]
            give_up = next(d for d in ("fold", "skip", "muck", "split") if d in dos)
            assert creator.act(give_up) == {"ok": True}
        creator.until(lambda s, v=creator.state["version"]: s["version"] > v)
    with db.session() as s:
        record = s.get(HandRecord, hand)
        assert record is not None and record.status == "finished"
        assert record.hand_file["rules"]["bots"] is True  # type: ignore[index]
        assert {a["player"] for a in record.actions} - {creator.name}  # the bots acted
    reply = creator.call("table:bots", fill=False)
    assert reply["ok"] and len(reply["bots"]) == 2
    creator.until(lambda s: set(seats(s)) == {creator.name})
    assert books(server).ok, books(server).problems
    db.dispose()
    creator.close()
    other.close()


def test_admin_bots_sit_at_once_and_leave_when_the_table_closes(server: Server) -> None:
    """`svara admin table create --bots 2` against the running server: both bots are
    seated with their stacks (staked by the house); closing the table sends them away with
    their stacks back to the house, and the books balance."""
    made = admin(server, "table", "create", "с ботами", "--variant", "svara32", "--seats", "3",
                 "--bots", "2")  # fmt: skip
    assert made["bots"] == 2 and made["live"]["ok"] is True
    bots = made["live"]["bots"]
    assert len(bots) == 2
    watcher = Player(server, made["id"])
    watcher.join()
    state = watcher.until(lambda s: len(seats(s)) == 2 and s)
    assert set(seats(state)) == set(bots) and all(m == 1000 for m in seats(state).values())
    house = admin(server, "house", "show")["house"]
    admin(server, "table", "close", str(made["id"]))
    assert watcher.event("table:closed")["table"] == made["id"]
    assert balances(server, bots) == dict.fromkeys(bots, 0)
    assert admin(server, "house", "show")["house"] == house + 2000  # the stacks went home
    assert books(server).ok, books(server).problems
    watcher.close()


@pytest.mark.parametrize("mode", ASYNC_MODES)
def test_a_bot_in_a_hand_plays_on_after_a_restart(tmp_path: Path, mode: str) -> None:
    """C-8.5 with a bot: the server is killed while the hand waits for «Гэри»; after the
    restart the hand is resumed and the bot, seated again by the recovery, answers."""
    slow_bot = {"SVARA_TIMER_SCALE": "1", "SVARA_BOT_THINK": "5"}  # the kill comes first
    server = start_server(tmp_path, mode, **slow_bot)
    person = Player(server, 0)
    person.table = practice(person)
    person.join()
    person.until(lambda s: len(seats(s)) == 2)
    assert person.call("table:ready") == {"ok": True}
    person.until(lambda s: s["phase"] == "playing" and s["hand"]["awaiting"])
    if person.my_turn():
        legal = {o["do"]: o for o in person.hand["legal"]}  # type: ignore[index]
        assert person.act("raise", legal["raise"]["min_to"]) == {"ok": True}
    person.until(lambda s: s["hand"]["awaiting"] == [PRACTICE_BOT])
    waited = len(person.state["history"])
    server.stop(signal.SIGKILL)
    server = start_server(tmp_path, mode, SVARA_TIMER_SCALE="1", SVARA_BOT_THINK="0")
    try:
        state = person.reconnect(server)
        assert state["phase"] == "playing" and "restarted" in (state["notice"] or "")
        state = person.until(lambda s: len(s["history"]) > waited and s)
        assert state["history"][waited]["player"] == PRACTICE_BOT
        assert books(server).ok, books(server).problems
    finally:
        person.close()
        server.stop()


def test_the_lobby_switch_leaves_a_seat_that_the_creator_takes_on_entering(
    server: Server,
) -> None:
    """docs/hosting.md's promise, docs/rules.md «Bots»: Иван opens a four-seat table from the
    lobby form and fills it from «Мои столы»: three bots sit and a seat stays free, which he
    takes on entering (C-1.2), not the queue. At a two-seat table one bot leaves the other
    seat to Мария; Ёж, arriving at the full table, queues, and the bot stands up for him."""
    ivan = Player(server, 0, unique_name("Иван"))
    grant(server, ivan.name, 1000)
    made = ivan.browser.post_form(
        "/tables", {"name": "Пятница", "variant": "classic", "seats": "4"}, token_from="/"
    )
    assert made.status_code == 302, made.text
    ivan.table = int(TABLE_URL.search(made.headers["Location"]).group(1))  # type: ignore[union-attr]
    filled = ivan.browser.post_form(f"/tables/{ivan.table}/bots", {"fill": "1"}, "/")
    assert filled.status_code == 302, filled.text
    reply = ivan.call("table:join", sit=True)
    assert reply["sit"] == {"ok": True}, reply
    state = ivan.until(lambda s: len(seats(s)) == 4 and s)
    assert state["you"]["seat"] is not None and state["queue"] == []
    assert sum(1 for s in state["seats"] if s and s["bot"]) == 3
    assert all(m >= 10 for m in seats(state).values())  # the house staked the classic bots
    assert ivan.call("table:bots", fill=False)["ok"]  # before they play without him (C-1.7)
    ivan.until(lambda s: not any(x and x["bot"] for x in s["seats"]))

    maria, yozh = Player(server, 0, unique_name("Мария")), Player(server, 0, unique_name("Ёж"))
    made = maria.browser.post_form(
        "/tables", {"name": "Дуэль", "variant": "classic", "seats": "2"}, token_from="/"
    )
    maria.table = yozh.table = int(TABLE_URL.search(made.headers["Location"]).group(1))  # type: ignore[union-attr]
    maria.join()
    filled = maria.call("table:bots", fill=True)
    assert filled["ok"] and len(filled["bots"]) == 1, filled  # the other seat is a person's
    for p in (maria, yozh):
        grant(server, p.name, 100)
        assert p.call("table:join", sit=True)["sit"] == {"ok": True}
    assert maria.until(lambda s: s["you"]["seat"] is not None)
    state = yozh.until(lambda s: yozh.name in seats(s) and s)  # the bot gave him its seat
    assert set(seats(state)) == {maria.name, yozh.name}
    assert books(server).ok, books(server).problems
    for p in (ivan, maria, yozh):
        p.close()
