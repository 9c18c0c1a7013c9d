"""The host's controls at the table (docs/hosting.md, «The host's table menu»; docs/protocol.md,
«table:host»), over real sockets: the table's creator (or an administrator) pauses after the
hand and resumes, stands a player up, locks the seats, changes the ante, levels and timers
between hands, mutes a microphone, fills and clears bots; every watcher reads who did it;
anyone else is refused `not_host` and nothing changes, and a bad argument changes nothing."""

from __future__ import annotations

import random
from typing import Any

from sqlmodel import select

from app.lobby.service import create_table
from app.models import Table, User

from ..conftest import Server, unique_name
from ..tablekit import (
    SLOW_TIMERS,
    Player,
    database,
    fund_house,
    grant,
    play_hand,
    refused,
)


def hosted(server: Server, variant: str = "classic", seats: int = 3) -> tuple[int, Player]:
    """A table created by «Иван» (as the lobby's form does), and Иван at it."""
    name = unique_name("Иван")
    ivan = Player(server, 0, name)
    db = database(server)
    with db.session() as s:
        user = s.exec(select(User).where(User.name == name)).one()
        game = "classic" if variant == "classic" else "shaha36"
        table = create_table(
            s, "Пятница", variant, seats=seats, rules=SLOW_TIMERS[game], created_by=user.id
        )
        table_id = table.id
    db.dispose()
    assert table_id is not None
    ivan.table = table_id
    ivan.client.close()
    ivan.client = ivan.browser.socket(table_id)
    return table_id, ivan


def sit(player: Player, server: Server, money: int = 1000) -> None:
    grant(server, player.name, money)
    player.join()
    player.sit()
    player.until(lambda s: s["you"]["seat"] is not None or s["you"]["queue"])


def host_news(player: Player, do: str) -> dict[str, Any]:
    """The `host` event of `do` in the news `player` receives."""
    return player.until(
        lambda s: next((e for e in s["news"] if e["kind"] == "host" and e["do"] == do), None)
    )


def test_a_stranger_is_refused_every_control_and_nothing_changes(fast: Server) -> None:
    """Мария, seated at Иван's table, is neither its creator nor an administrator: every
    host control and the bots switch are refused `not_host`, at his table and at an id of
    a table that is not hers either."""
    table, ivan = hosted(fast)
    maria = Player(fast, table, unique_name("Мария"))
    sit(ivan, fast)
    sit(maria, fast)
    maria.until(lambda s: len([x for x in s["seats"] if x]) == 2)
    for do, extra in [
        ("pause", {}),
        ("resume", {}),
        ("lock", {}),
        ("unlock", {}),
        ("stand", {"player": ivan.name}),
        ("mute", {"player": ivan.name}),
        ("unmute", {"player": ivan.name}),
        ("rules", {"rules": {"ante": 20}}),
    ]:
        refused(maria, "table:host", {"table": table, "do": do, **extra}, "not_host")
    bots = maria.call("table:bots", fill=True)
    assert bots["ok"] is False and bots["code"] == "not_host", bots
    state = maria.state
    assert state["host"] == {
        "paused": False,
        "locked": False,
        "muted": [],
        "asking": [],
        "pending": None,
    }
    assert state["info"]["ante"] == 10 and len([x for x in state["seats"] if x]) == 2
    for p in (ivan, maria):
        p.close()


def test_bad_arguments_change_nothing(fast: Server) -> None:
    """An unknown control, a player who is not seated, an ante out of the variant's range
    (C-2.1's ante is 1 to 1 000 000), a rule the host does not change, levels that are not
    numbers: each a `bad_request`, nothing changed."""
    table, ivan = hosted(fast)
    sit(ivan, fast)
    for extra in [
        {"do": "shuffle"},
        {"do": "stand", "player": "Ёж"},
        {"do": "mute", "player": "Ёж"},
        {"do": "rules", "rules": {"ante": 0}},
        {"do": "rules", "rules": {"ante": 10**9}},
        {"do": "rules", "rules": {"seats": 2}},
        {"do": "rules", "rules": {"levels": "много"}},
        {"do": "rules", "rules": {"turn_seconds": 1}},
        {"do": "rules", "rules": {}},
    ]:
        refused(ivan, "table:host", {"table": table, **extra}, "bad_request")
    refused(ivan, "table:host", {"table": table, "do": "resume"}, "not_now")  # not paused
    assert ivan.state["info"]["ante"] == 10 and ivan.state["host"]["paused"] is False
    ivan.close()


def test_pause_after_the_hand_then_resume(fast: Server) -> None:
    """Иван pauses during a hand: it plays out, no gathering opens after it, «Готов» is
    refused `paused` and nobody's timer runs; Мария reads who paused. Resume: «Готов» again."""
    table, ivan = hosted(fast)
    maria = Player(fast, table, unique_name("Мария"))
    sit(ivan, fast)
    sit(maria, fast)
    for p in (ivan, maria):
        assert p.call("table:ready") == {"ok": True}
    maria.until(lambda s: s["phase"] == "playing")
    assert ivan.call("table:host", do="pause") == {"ok": True}
    news = host_news(maria, "pause")
    assert news["player"] == ivan.name
    assert maria.state["host"]["paused"] is True and maria.state["phase"] == "playing"
    play_hand([ivan, maria], random.Random(7))
    state = maria.until(lambda s: s["phase"] != "playing" and s)
    assert state["phase"] == "waiting" and state["gathering"] is None
    assert "ready" not in state["you"]["can"]
    refused(maria, "table:ready", {"table": table}, "paused")
    assert ivan.call("table:host", do="resume") == {"ok": True}
    assert host_news(maria, "resume")["player"] == ivan.name
    assert "ready" in maria.until(lambda s: not s["host"]["paused"] and s)["you"]["can"]
    assert maria.call("table:ready") == {"ok": True}
    maria.until(lambda s: s["phase"] == "gathering")
    for p in (ivan, maria):
        p.close()


def test_a_pause_stops_the_running_gathering(fast: Server) -> None:
    """shaha36 opens «Новая раздача» by itself (S-1.6): a pause stops its timer."""
    table, ivan = hosted(fast, "shaha36")
    maria = Player(fast, table, unique_name("Мария"))
    sit(ivan, fast)
    sit(maria, fast)
    assert ivan.call("table:ready") == {"ok": True}
    maria.until(lambda s: s["gathering"] is not None)
    assert ivan.call("table:host", do="pause") == {"ok": True}
    state = maria.until(lambda s: s["host"]["paused"] and s)
    assert state["gathering"] is None and state["phase"] == "waiting"
    assert all(seat is None or seat["answer"] is None for seat in state["seats"])
    for p in (ivan, maria):
        p.close()


def test_the_host_stands_a_player_up(fast: Server) -> None:
    """Иван stands Ёж up: Ёж's seat is free, and the `stood` event says why and by whom."""
    table, ivan = hosted(fast)
    yozh = Player(fast, table, unique_name("Ёж"))
    sit(ivan, fast)
    sit(yozh, fast)
    assert ivan.call("table:host", do="stand", player=yozh.name) == {"ok": True}
    stood = yozh.until(lambda s: next((e for e in s["news"] if e["kind"] == "stood"), None))
    assert stood == {"kind": "stood", "player": yozh.name, "why": "host", "by": ivan.name}
    assert yozh.state["you"]["seat"] is None and "sit" in yozh.state["you"]["can"]
    seen = ivan.until(lambda s: next((e for e in s["news"] if e["kind"] == "stood"), None))
    assert seen == stood  # every watcher reads who stood him up
    for p in (ivan, yozh):
        p.close()


def test_locked_seats_queue_newcomers_until_unlocked(fast: Server) -> None:
    """Locked: Мария, entering a table with free seats, waits in the queue; unlocked, the
    queue is seated (C-1.2: in its order)."""
    table, ivan = hosted(fast)
    sit(ivan, fast)
    assert ivan.call("table:host", do="lock") == {"ok": True}
    ivan.until(lambda s: s["host"]["locked"])
    maria = Player(fast, table, unique_name("Мария"))
    sit(maria, fast)
    state = maria.until(lambda s: s["you"]["queue"] == 1 and s)
    assert state["you"]["seat"] is None and state["host"]["locked"] is True
    assert ivan.call("table:host", do="unlock") == {"ok": True}
    assert maria.until(lambda s: s["you"]["seat"] is not None and s)["queue"] == []
    for p in (ivan, maria):
        p.close()


def test_rules_change_between_hands_and_after_the_hand_in_play(fast: Server) -> None:
    """Between hands the ante, the levels and a timer change at once (kept with the table,
    the lobby lists them); during a hand the change waits (`pending`) and the next hand
    plays it (a hand keeps the rules it began with)."""
    table, ivan = hosted(fast)
    maria = Player(fast, table, unique_name("Мария"))
    sit(ivan, fast)
    sit(maria, fast)
    lobby = ivan.browser.socket()
    lobby.call("lobby:join", {})
    lobby.wait("lobby:state")
    changed = {"ante": 20, "levels": [20, 40, 60], "turn_seconds": 45}
    assert ivan.call("table:host", do="rules", rules=changed) == {"ok": True}
    listed = lobby.wait("lobby:table")
    while listed["id"] != table:
        listed = lobby.wait("lobby:table")
    assert listed["stakes"]["ante"] == 20  # the lobby lists the new stakes
    lobby.close()
    news = host_news(maria, "rules")
    assert news["rules"] == changed and news["after_hand"] is False
    state = maria.state
    assert state["info"]["ante"] == 20 and state["info"]["rules"]["levels"] == [20, 40, 60]
    db = database(fast)
    with db.session() as s:
        stored = s.get(Table, table)
        assert stored is not None and stored.rules["ante"] == 20
    db.dispose()
    for p in (ivan, maria):
        assert p.call("table:ready") == {"ok": True}
    maria.until(lambda s: s["phase"] == "playing")
    assert ivan.call("table:host", do="rules", rules={"ante": 30}) == {"ok": True}
    assert maria.until(lambda s: s["host"]["pending"])["ante"] == 30
    assert maria.state["info"]["ante"] == 20  # the hand in play keeps its ante
    play_hand([ivan, maria], random.Random(3))
    state = maria.until(lambda s: s["info"]["ante"] == 30 and s)
    assert state["host"]["pending"] is None
    for p in (ivan, maria):
        p.close()


def test_the_host_mutes_a_microphone_and_he_asks_to_speak(fast: Server) -> None:
    """Иван mutes Мария here: her `voice:mic` on is refused (the SFU forwards nothing of
    hers), she asks to speak, Иван sees it and unmutes; then her mic may go on again."""
    table, ivan = hosted(fast)
    maria = Player(fast, table, unique_name("Мария"))
    sit(ivan, fast)
    sit(maria, fast)
    refused(maria, "table:ask_speak", {"table": table}, "not_now")  # not muted
    assert ivan.call("table:host", do="mute", player=maria.name) == {"ok": True}
    assert host_news(maria, "mute") == {
        "kind": "host",
        "player": ivan.name,
        "do": "mute",
        "whom": maria.name,
    }
    assert maria.state["host"]["muted"] == [maria.name]
    mic = maria.call("voice:mic", on=True)
    assert mic["ok"] is False and "host muted" in mic["error"], mic
    maria.event("error")
    assert maria.call("table:ask_speak") == {"ok": True}
    assert ivan.until(lambda s: s["host"]["asking"]) == [maria.name]
    assert ivan.call("table:host", do="unmute", player=maria.name) == {"ok": True}
    state = maria.until(lambda s: not s["host"]["muted"] and s)
    assert state["host"]["asking"] == []
    mic = maria.call("voice:mic", on=True)
    assert "host muted" not in mic.get("error", ""), mic  # refused only for want of a voice
    for p in (ivan, maria):
        p.close()


def test_an_administrator_hosts_a_table_he_did_not_create(fast: Server) -> None:
    """Вера is an administrator: she pauses Иван's table; the event names her."""
    table, ivan = hosted(fast)
    sit(ivan, fast)
    vera = Player(fast, table, unique_name("Вера"))
    db = database(fast)
    with db.session() as s:
        user = s.exec(select(User).where(User.name == vera.name)).one()
        user.is_admin = True
        s.add(user)
    db.dispose()
    vera.join()
    assert vera.call("table:host", do="pause") == {"ok": True}
    assert host_news(ivan, "pause")["player"] == vera.name
    for p in (ivan, vera):
        p.close()


def test_the_host_fills_and_clears_bots_and_the_table_reads_it(fast: Server) -> None:
    """The table menu's bots use the lobby's service (`table:bots`): every watcher reads
    that Иван seated them, and that he sent them away."""
    _, ivan = hosted(fast)
    fund_house(fast, 100_000)
    sit(ivan, fast)
    filled = ivan.call("table:bots", fill=True)
    assert filled["ok"] and filled["bots"], filled
    assert host_news(ivan, "bots_fill")["player"] == ivan.name
    assert ivan.call("table:bots", fill=False)["ok"]
    assert host_news(ivan, "bots_clear")["player"] == ivan.name
    ivan.close()


def test_a_page_that_comes_back_reads_the_host_lines_again(fast: Server) -> None:
    """Иван locks the seats, mutes Мария (she asks to speak) and stands Ёж up, while Мария
    also chats; a socket that joins afterwards (a reload, Вера arriving late) is told the
    host lines in order with their times, beside the chat, and none of the other news (a
    seat taken, a «Готов») — so its page writes them again where they were said."""
    table, ivan = hosted(fast)
    maria = Player(fast, table, unique_name("Мария"))
    yozh = Player(fast, table, unique_name("Ёж"))
    for p in (ivan, maria, yozh):
        sit(p, fast)
    assert ivan.call("table:host", do="lock") == {"ok": True}
    assert maria.call("table:chat", text="Привет, Ёж 🦔") == {"ok": True}
    assert ivan.call("table:host", do="mute", player=maria.name) == {"ok": True}
    assert maria.call("table:ask_speak") == {"ok": True}
    assert ivan.call("table:host", do="stand", player=yozh.name) == {"ok": True}
    assert ivan.call("table:ready") == {"ok": True}  # news, not a host line
    maria.until(lambda s: any(e["kind"] == "stood" for e in s["news"]))

    maria.reconnect()
    joined = maria.join()
    log = joined["log"]
    assert [(e["kind"], e.get("do"), e["player"]) for e in log] == [
        ("host", "lock", ivan.name),
        ("host", "mute", ivan.name),
        ("ask_speak", None, maria.name),
        ("stood", None, yozh.name),
    ], log
    assert log[1]["whom"] == maria.name and log[3] == {**log[3], "why": "host", "by": ivan.name}
    times = [e["time"] for e in log]
    assert times == sorted(times)
    said = next(line for line in joined["chat"] if line["text"] == "Привет, Ёж 🦔")
    assert times[0] <= said["time"] <= times[1]  # between the lock and the mute, as said

    vera = Player(fast, table, unique_name("Вера"))
    assert vera.join()["log"] == log  # a latecomer reads the same lines
    for p in (ivan, maria, yozh, vera):
        p.close()
