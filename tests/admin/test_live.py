"""`svara admin` as a real subprocess next to a running `svara serve` (docs/rules.md, «The
administrator»): the changes take effect live through the notices path (app/admin/notices.py) — a
grant shows up at the table, a new table appears in the lobby, a ban disconnects, a kick stands a
player up, a close ends the table and refunds its hand in play. Every wait is on an event, never a
sleep."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.conftest import ASYNC_MODES, SVARA, WAIT, Browser, Server, stopped, unique_name
from tests.server.tablekit import balances, books, fast_server, hands, new_table, seat


@pytest.fixture(scope="module", params=ASYNC_MODES)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    running = fast_server(tmp_path_factory.mktemp(f"admin-{request.param}"), request.param)
    with stopped(running):
        yield running


def cli(server: Server, *args: str) -> subprocess.CompletedProcess[str]:
    """`svara admin --instance <the server's> …` as its own process."""
    return subprocess.run(
        [SVARA, "admin", "--instance", str(server.instance), *args],
        capture_output=True,
        text=True,
        timeout=3 * WAIT,
        check=False,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def ok(server: Server, *args: str) -> Any:
    done = cli(server, *args, "--json")
    assert done.returncode == 0, (done.stdout, done.stderr)
    return json.loads(done.stdout)


def seated(state: dict[str, Any]) -> list[str]:
    return [s["name"] for s in state["seats"] if s]


def test_a_grant_shows_up_at_the_table(server: Server) -> None:
    table = new_table(server, "classic")
    (anna,) = seat(server, table, 1, money=10)  # a seat needs the ante (docs/rules.md)
    assert anna.state["seats"][0]["money"] == 10
    done = ok(server, "balance", "grant", anna.name, "500", "--reason", "welcome")
    assert done["live"] == {"server": True, "ok": True, "balance": 510, "tables": [table]}
    anna.until(lambda s: s["seats"][0]["money"] == 510)
    assert ("account:balance", {"balance": 510}) in anna.received
    anna.close()


def test_a_new_table_appears_in_the_lobby(server: Server) -> None:
    browser = Browser(server.url)
    browser.register(unique_name("l"))
    client = browser.socket()
    client.call("lobby:join")
    client.wait("lobby:state")
    name = unique_name("Стол")
    made = ok(server, "table", "create", name, "--variant", "shaha36", "--ante", "20")
    assert made["live"] == {"server": True, "ok": True}
    listed = client.wait("lobby:table")
    assert (listed["id"], listed["name"], listed["stakes"]["ante"]) == (made["id"], name, 20)
    hidden = ok(
        server, "table", "create", unique_name("Тайный"), "--variant", "classic", "--private"
    )
    ok(server, "table", "close", str(hidden["id"]))
    after = ok(server, "table", "create", unique_name("Стол"), "--variant", "classic")
    assert client.wait("lobby:table")["id"] == after["id"]
    # A private table was never listed: the lobby hears nothing of it, not even its close.
    assert [event for event, _ in client.seen] == ["lobby:state", "lobby:table", "lobby:table"]
    client.close()


def test_a_ban_disconnects_and_frees_the_seat(server: Server) -> None:
    table = new_table(server, "classic")
    anna, boris = seat(server, table, 2, money=100)
    done = ok(server, "user", "ban", anna.name)
    assert done["live"]["disconnected"] is True and done["live"]["tables"] == [table]
    assert anna.event("session:ended") == {"reason": "banned"}
    assert anna.client.disconnected.wait(WAIT)
    boris.until(lambda s: seated(s) == [boris.name])
    refused = Browser(server.url).login(anna.name, "correct horse")
    assert refused.status_code == 401  # and he cannot log in again
    ok(server, "user", "unban", anna.name)
    assert Browser(server.url).login(anna.name, "correct horse").status_code == 302
    boris.close()


def test_a_ban_in_a_hand_folds_the_player_on_his_turn(server: Server) -> None:
    """S-1.7 as decided for a ban: the hand goes on for the others; the banned player is
    folded when his turn comes and stood up when it ends."""
    # Turns of 600 s (12 s at the test's time scale): his turn does not lapse while the
    # ban's command starts in its own process.
    table = new_table(server, "classic", turn_seconds=600)
    players = seat(server, table, 3, money=200)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    watcher = players[-1]
    awaited = watcher.until(lambda s: s["phase"] == "playing" and s["hand"]["awaiting"])[0]
    banned = next(p for p in players if p.name == awaited)
    ok(server, "user", "ban", banned.name)
    others = [p for p in players if p is not banned]
    others[0].until(
        lambda s: (
            s["hand"]
            and any(
                x["name"] == banned.name and x["state"] == "folded" for x in s["hand"]["players"]
            )
        )
    )
    for p in players:
        p.close()


def test_a_new_password_ends_the_connection(server: Server) -> None:
    table = new_table(server, "classic")
    (anna,) = seat(server, table, 1, money=10)  # a seat needs the ante (docs/rules.md)
    done = ok(server, "user", "set-password", anna.name, "--password", "a new secret")
    assert done["live"]["disconnected"] is True
    assert anna.event("session:ended") == {"reason": "password changed"}
    assert anna.client.disconnected.wait(WAIT)
    assert anna.browser.http.get(server.url + "/", allow_redirects=False).status_code == 302
    assert Browser(server.url).login(anna.name, "a new secret").status_code == 302


def test_kick_stands_a_player_up(server: Server) -> None:
    table = new_table(server, "classic")
    anna, boris = seat(server, table, 2, money=100)
    ok(server, "table", "kick", str(table), anna.name)
    assert anna.event("table:kicked") == {"table": table}
    boris.until(lambda s: seated(s) == [boris.name])
    again = cli(server, "table", "kick", str(table), anna.name)
    assert again.returncode == 2 and "is not at table" in again.stderr
    anna.sit()  # a kick is a stand-up, not a ban from the table
    boris.until(lambda s: sorted(seated(s)) == sorted([anna.name, boris.name]))
    anna.close()
    boris.close()


def test_close_ends_the_table_and_refunds_the_hand_in_play(server: Server) -> None:
    """C-8.5: the running hand is cancelled and every payment into it goes back."""
    table = new_table(server, "classic")
    players = seat(server, table, 3, money=200)
    names = [p.name for p in players]
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    for p in players:
        p.until(lambda s: s["phase"] == "playing")
    assert balances(server, names) == dict.fromkeys(names, 190)  # the antes are in the pot
    closed = ok(server, "table", "close", str(table), "--reason", "время спать")
    assert closed["server"] is True and len(closed["cancelled_hands"]) == 1
    for p in players:
        assert p.event("table:closed") == {"table": table, "reason": "время спать"}
    assert balances(server, names) == dict.fromkeys(names, 200)
    assert [h.status for h in hands(server, table)] == ["cancelled"]
    found = books(server)
    assert found.ok, found.problems
    late = players[0].call("table:join")
    assert late["ok"] is False and late["code"] == "not_found"
    for p in players:
        p.close()


def test_the_books_balance_after_it_all(server: Server) -> None:
    """`ledger verify` and `hand verify` of every hand, on the live instance."""
    assert cli(server, "ledger", "verify").returncode == 0
    for hand in ok(server, "hand", "list"):
        report = cli(server, "hand", "verify", str(hand["id"]), "--json")
        assert report.returncode == 0, report.stdout
