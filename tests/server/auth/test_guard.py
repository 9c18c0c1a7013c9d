"""Hostile clients against a real `svara serve` (docs/protocol.md «Budget», docs/hosting.md
«Limits»): logins and sign-ups limited per address and in all, password hashes off the
event loop and bounded, each connection's event budget, names a client may not send,
anonymous handshakes bounded, reconnect loops that cost the watchers nothing, a broken
`next`, voice offers the page never makes.

Several client addresses are loopback ones (127.0.0.2, …): Linux routes all of 127/8 to lo.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import socketio
from requests.adapters import HTTPAdapter

from app.protocol import Budget, Budgets
from tests.voicekit import Participant

from ..conftest import ASYNC_MODES, WAIT, Browser, Client, Server, servers, unique_name
from ..tablekit import SCALE, Player, new_table, seat
from ..voice.test_serve_voice import join_voice

SLOW_HASH = json.dumps({"time_cost": 40})  # a wrong login takes seconds, not tenths


def from_address(browser: Browser, address: str) -> Browser:
    """The browser's requests leave from `address` (a loopback address of its own)."""
    adapter = HTTPAdapter()
    adapter.init_poolmanager(4, 4, source_address=(address, 0))
    browser.http.mount("http://", adapter)
    return browser


def visitor(server: Server, address: str = "127.0.0.1") -> Browser:
    return from_address(Browser(server.url), address)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    """Start servers with the given settings; all are stopped at the end."""
    with servers(tmp_path) as run:
        yield run


def refused_with(answer: requests.Response, key: str) -> int:
    """The seconds of a 429's Retry-After, after checking its page names `key`."""
    assert answer.status_code == 429, answer.text
    assert f'data-i18n="{key}"' in answer.text
    seconds = int(answer.headers["Retry-After"])
    assert 1 <= seconds <= 3600
    return seconds


# --- logins and sign-ups ----------------------------------------------------------------
def test_logins_are_limited_per_address_and_in_all(serve: Any) -> None:
    """Per address; and in all, for clients not known to the name (its own address's logins
    spend nothing of the total: tests/server/auth/test_lockouts.py)."""
    server = serve(SVARA_LOGIN_RATE="3/minute", SVARA_LOGIN_RATE_TOTAL="5/hour")
    visitor(server).register("Иван", "ёлки-палки")
    home = visitor(server)
    for name in ("Мария", "Ёж", "иВАН"):
        assert home.login(name, "не тот пароль").status_code == 401
    refused_with(home.login("Иван", "ёлки-палки"), "account.too_many")  # right, but too many
    away = visitor(server, "127.0.0.2")
    assert away.login("Ёж", "не тот").status_code == 401
    assert away.login("иван", "ёлки-палки").status_code == 302
    assert visitor(server, "127.0.0.3").login("Мария", "не тот").status_code == 401
    refused_with(visitor(server, "127.0.0.4").login("Иван", "ёлки-палки"), "account.too_many")


def test_signups_are_limited_per_address_and_in_all(serve: Any) -> None:
    server = serve(SVARA_SIGNUP_RATE="2/hour", SVARA_SIGNUP_RATE_TOTAL="3/hour")
    home = visitor(server)
    for name in ("Иван", "Мария"):
        visitor(server).register(name)
    answer = home.post_form(
        "/register", {"name": "Ёж", "password": "correct horse", "confirm": "correct horse"}
    )
    assert refused_with(answer, "account.too_many_signups") > 60  # the window is an hour
    assert visitor(server).login("Ёж", "correct horse").status_code == 401  # not created
    visitor(server, "127.0.0.2").register("Борис")
    answer = visitor(server, "127.0.0.3").post_form(
        "/register", {"name": "Ёж", "password": "correct horse", "confirm": "correct horse"}
    )
    refused_with(answer, "account.too_many_signups")


@pytest.mark.parametrize("async_mode", ASYNC_MODES)
def test_a_password_hash_leaves_the_tables_running(serve: Any, async_mode: str) -> None:
    """While a wrong login's (slow) hash is computed, another player's events are answered
    one after another: the hash is not on the event loop."""
    server = serve(async_mode=async_mode, SVARA_PASSWORD_HASH=SLOW_HASH)
    browser = visitor(server)
    browser.register("Мария")
    client = browser.socket()
    guesser = visitor(server, "127.0.0.2")
    token = guesser.csrf("/login")
    answers: list[int] = []

    def guess() -> None:
        form = {"name": "Никто", "password": "x" * 12, "csrf_token": token}
        answers.append(
            guesser.http.post(server.url + "/login", data=form, timeout=WAIT).status_code
        )

    login = threading.Thread(target=guess)
    login.start()
    answered = 0
    while login.is_alive() and answered < 30:
        assert client.call("lobby:leave") == {"ok": True}
        answered += 1
    login.join(WAIT)
    assert answered == 30 and answers == [401], (answered, answers)
    client.close()


def test_hashes_at_once_are_bounded(serve: Any) -> None:
    server = serve(SVARA_PASSWORD_HASH=SLOW_HASH, SVARA_HASH_THREADS="1", SVARA_HASH_QUEUE="0")
    guessers = [visitor(server, f"127.0.0.{i + 2}") for i in range(3)]
    tokens = [g.csrf("/login") for g in guessers]
    answers: list[requests.Response] = []
    threads = [
        threading.Thread(
            target=lambda g=g, t=t: answers.append(
                g.http.post(
                    server.url + "/login",
                    data={"name": "Ёж", "password": "x" * 12, "csrf_token": t},
                    timeout=WAIT,
                )
            )
        )
        for g, t in zip(guessers, tokens, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    codes = sorted(a.status_code for a in answers)
    assert codes[0] == 401 and codes[-1] == 429, codes
    busy = next(a for a in answers if a.status_code == 429)
    assert refused_with(busy, "account.busy") == 2


def test_a_next_with_a_line_break_is_refused(serve: Any) -> None:
    server = serve()
    browser = visitor(server)
    browser.register("Ёж")
    browser.post_form("/logout", {}, token_from="/")
    token = browser.csrf("/login")
    answer = browser.http.post(
        server.url + "/login?next=/%0d%0aX:1",
        data={"name": "Ёж", "password": "correct horse", "csrf_token": token},
        allow_redirects=False,
        timeout=WAIT,
    )
    assert answer.status_code == 400 and "X" not in answer.headers
    assert 'data-i18n="account.bad_next"' in answer.text
    assert browser.http.get(server.url + "/", allow_redirects=False).status_code == 302
    assert browser.login("Ёж", "correct horse").headers["Location"] == "/"
    page = browser.http.post(
        server.url + "/login?next=/\\evil.example",
        data={"name": "Ёж", "password": "correct horse", "csrf_token": browser.csrf("/login")},
        allow_redirects=False,
        timeout=WAIT,
    )
    assert page.headers["Location"] == "/"


def test_behind_a_trusted_proxy_handshakes_are_bounded_per_client(serve: Any) -> None:
    """Behind Caddy every connection comes from the proxy's address: the bound counts the
    address the proxy forwards, so one client's burst does not lock out the others."""
    server = serve(SVARA_TRUST_PROXY="1", SVARA_HANDSHAKES_PER_ADDRESS="2")
    proxy = visitor(server)

    def through(client: str) -> int:
        return proxy.http.get(
            server.url + "/socket.io/?EIO=4&transport=polling",
            headers={"X-Forwarded-For": client},
            timeout=WAIT,
        ).status_code

    assert [through("203.0.113.7") for _ in range(3)] == [200, 200, 401]
    assert [through("198.51.100.4") for _ in range(2)] == [200, 200]


# --- the event budget and the gate ------------------------------------------------------
def test_a_budget_refills_at_its_rate_and_gives_up_on_a_flood() -> None:
    budget = Budget(rate=4, burst=5, stamp=100.0)  # times in binary fractions: exact sums
    assert all(budget.spend(100.0) for _ in range(5))
    assert not budget.spend(100.0) and not budget.exhausted
    assert budget.spend(100.25)  # one token back after a quarter of a second
    for _ in range(5):
        assert not budget.spend(100.25)
    assert not budget.exhausted
    assert not budget.spend(100.25)
    assert budget.exhausted  # six refusals in a row with no time to drain them
    budget = Budget(rate=8, burst=5, stamp=100.0)
    for step in range(1, 200):  # 16 events a second against 8: half refused, never cut off
        budget.spend(100.0 + step / 16)
        assert not budget.exhausted


def test_budgets_forget_those_refilled_but_keep_a_flood() -> None:
    """The map of budgets follows the players who sent events lately: thousands of one-off
    players are forgotten once their budgets have refilled, a flooder's debt is kept."""
    now = [100.0]
    budgets = Budgets(rate=4, burst=5, clock=lambda: now[0])
    flooder = budgets.of(-1)
    while not flooder.exhausted:
        flooder.spend(now[0])
    for player in range(5000):  # each sends one event and goes
        assert budgets.of(player).spend(now[0])
    assert len(budgets) == 5001  # no time has passed: each still owes its token
    now[0] += 0.5  # every one-off budget has its token back; the flooder still owes
    for player in range(5000, 10000):
        budgets.of(player).spend(now[0])
    assert len(budgets) < 2 * Budgets.SWEEP_FROM + 5000
    assert budgets.get(-1) is flooder and flooder.owes(now[0])
    assert budgets.get(0) is None  # forgotten: the same as a fresh budget


def test_reserved_and_odd_event_names_are_refused(player: tuple[Browser, Client, str]) -> None:
    _, client, _ = player
    for name in ("*", "connect", "disconnect"):
        assert client.call(name, {"x": 1}) == {"ok": False, "error": f"unknown event {name!r}"}
        assert client.wait("error") == {"event": name, "reason": f"unknown event {name!r}"}
    assert client.sio.connected
    assert client.call("lobby:join") == {"ok": True}
    client.wait("lobby:state")
    assert not any(name == "session:taken_over" for name, _ in client.seen)


def test_a_flood_is_refused_cheaply_then_disconnected(server: Server) -> None:
    flooder, other = Browser(server.url), Browser(server.url)
    flooder.register(unique_name("Ёж"))
    other.register(unique_name("Мария"))
    loud, quiet = flooder.socket(), other.socket()
    for _ in range(400):
        loud.sio.emit("lobby:leave")
    refusal = loud.wait("error")
    while refusal.get("code") != "rate":
        refusal = loud.wait("error")
    assert refusal == {"event": "lobby:leave", "reason": "too many events", "code": "rate"}
    assert loud.disconnected.wait(WAIT)
    again = Client()  # connecting again does not refill the budget
    with pytest.raises(socketio.exceptions.ConnectionError):
        again.connect(server.url, flooder.cookie_header())
    assert again.refusal == {"message": "too many events"}
    assert quiet.call("lobby:join") == {"ok": True}
    quiet.close()


def test_a_player_over_budget_is_refused_then_served_again(server: Server) -> None:
    """A burst just over the budget: refusals with code `rate`, no disconnect."""
    browser = Browser(server.url)
    browser.register(unique_name("Иван"))
    client = browser.socket()
    answers: list[Any] = []
    all_in = threading.Event()

    def answered(answer: Any) -> None:
        answers.append(answer)
        if len(answers) == 65:
            all_in.set()

    for _ in range(65):  # sent at once, not one round trip each: a loaded machine's slow
        client.sio.emit("lobby:leave", callback=answered)  # trips would refill the budget
    assert all_in.wait(WAIT)
    refused = [a for a in answers if not a["ok"]]
    assert refused and all(
        a == {"ok": False, "error": "too many events", "code": "rate"} for a in refused
    )
    assert client.sio.connected
    client.close()


# --- connections ------------------------------------------------------------------------
def handshake(server: Server, address: str) -> requests.Response:
    return visitor(server, address).http.get(
        server.url + "/socket.io/?EIO=4&transport=polling", timeout=WAIT
    )


def test_anonymous_handshakes_are_bounded(serve: Any) -> None:
    server = serve(SVARA_HANDSHAKES_PER_ADDRESS="3", SVARA_HANDSHAKES_PENDING="5")
    assert [handshake(server, "127.0.0.1").status_code for _ in range(4)] == [200] * 3 + [401]
    assert handshake(server, "127.0.0.1").json() == {"message": "too many connections"}
    assert [handshake(server, "127.0.0.2").status_code for _ in range(3)] == [200, 200, 401]
    assert handshake(server, "127.0.0.3").status_code == 401  # all five are taken ...
    browser = visitor(server, "127.0.0.3")
    browser.register("Мария")
    client = browser.socket()  # ... by nobody's: a logged-in player's page still connects
    assert client.call("lobby:join") == {"ok": True}
    client.close()


@pytest.mark.parametrize("async_mode", ASYNC_MODES)
def test_reconnect_loops_cost_the_watchers_nothing(serve: Any, async_mode: str) -> None:
    """200 connect/disconnect cycles of a seated player: his table does not publish an
    «offline» and an «online» for each (a watcher gets a handful of states, not 400)."""
    server = serve(async_mode=async_mode, SVARA_TIMER_SCALE=str(SCALE))
    table = new_table(server, "classic", seats=3)
    cycling, _ = seat(server, table, 2, 1000)
    watcher = Player(server, table, unique_name("Ёж"))
    watcher.join()
    watcher.drain()
    states_before = sum(1 for name, _ in watcher.received if name == "table:state")
    for _ in range(200):  # the line drops (no goodbye) as the next connection opens
        dropping = cycling.client.sio.eio
        threading.Thread(target=dropping.disconnect, kwargs={"abort": True}, daemon=True).start()
        cycling.client = cycling.browser.socket(table)
    mine = cycling.event("table:state")
    assert watcher.call("table:join")["ok"]
    watcher.drain()
    states = sum(1 for name, _ in watcher.received if name == "table:state") - states_before
    assert states <= 10, states
    assert mine["version"] <= watcher.state["version"]
    cycling.close()
    watcher.close()


# --- voice offers -----------------------------------------------------------------------
def offer(slots: int) -> str:
    """A browser-like offer (aiortc): a mic and `slots` receive-only m-lines."""

    async def make() -> str:
        participant = Participant(slots)
        try:
            return await participant.offer()
        finally:
            await participant.pc.close()

    return asyncio.run(make())


def test_voice_offers_the_page_never_makes_are_refused(serve: Any) -> None:
    """At a table of three: more than two receive slots, or no DTLS fingerprint, is refused
    by the web process before the SFU answers anything (docs/protocol.md «Voice»)."""
    server = serve(SVARA_VOICE_ADDRESSES='["127.0.0.1"]')
    table = new_table(server, "classic", seats=3)
    anna, _ = seat(server, table, 2, 1000)
    assert join_voice(anna.client, table)["ok"]
    greedy = anna.call("voice:offer", sdp=offer(3))
    assert greedy == {
        "ok": False,
        "error": "3 receive slots, at most 2 (the seats but one)",
    }, greedy
    bare = "\r\n".join(
        line for line in offer(2).split("\r\n") if not line.startswith("a=fingerprint:")
    )
    assert anna.call("voice:offer", sdp=bare) == {
        "ok": False,
        "error": "the offer has no DTLS fingerprint",
    }
    assert anna.call("voice:offer", sdp="v=0\r\n")["error"] == "the offer has no media"
    answer = anna.call("voice:offer", sdp=offer(2))
    assert answer["ok"] and "a=fingerprint:" in answer["sdp"]
    anna.close()
