"""Nobody can lock the players out (docs/hosting.md «On the open internet», «Limits»), on a
real `svara serve`: bare Engine.IO handshakes from many addresses do not refuse a logged-in
player's page (handshakes with a valid session count by account; IPv6 by /64); a login
flood from many addresses does not refuse a player's correct password from his usual
address; a sign-up flood slows a newcomer by a turn, and keeps his turn, instead of barring
him for the rest of the hour.

Client addresses are loopback ones (127.0.0.2, …): Linux routes all of 127/8 to lo.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import socketio

from ..conftest import WAIT, Browser, Server, servers
from .test_guard import from_address, handshake, refused_with, visitor

CHEAP_HASH = json.dumps({"time_cost": 1, "memory_cost": 1024})  # many logins, quickly
HANDSHAKE = "/socket.io/?EIO=4&transport=polling"


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    with servers(tmp_path, SVARA_PASSWORD_HASH=CHEAP_HASH, SVARA_VOICE="false") as run:
        yield run


def register(server: Server, name: str, address: str, password: str) -> Browser:
    browser = visitor(server, address)
    browser.register(name, password)
    return browser


# --- handshakes -------------------------------------------------------------------------
def test_bare_handshakes_from_many_addresses_leave_a_player_his_socket(serve: Any) -> None:
    """16 addresses × 16 bare handshakes fill HANDSHAKES_PENDING (256, the default): a
    seventeenth anonymous one is refused, a logged-in player's page connects and plays."""
    server = serve(SVARA_HANDSHAKES_PER_ADDRESS="16", SVARA_HANDSHAKES_PENDING="256")
    ivan = register(server, "Иван", "127.0.0.1", "ёлки-палки")
    for n in range(16):
        crowd = from_address(Browser(server.url), f"127.0.1.{n + 1}")
        assert all(
            crowd.http.get(server.url + HANDSHAKE, timeout=WAIT).status_code == 200
            for _ in range(16)
        )
    assert handshake(server, "127.0.2.1").status_code == 401  # anonymous: all are taken
    client = ivan.socket()
    assert client.call("lobby:join") == {"ok": True}
    client.close()


def test_a_players_own_handshakes_are_bounded_by_his_account(serve: Any) -> None:
    """A valid session does not open the door to unbounded handshakes: HANDSHAKES_PER_ADDRESS
    of them per account, from any addresses; another player is not affected."""
    server = serve(SVARA_HANDSHAKES_PER_ADDRESS="3", SVARA_HANDSHAKES_PENDING="3")
    masha = register(server, "Мария", "127.0.0.1", "correct horse")
    cookie = {"Cookie": masha.cookie_header()}
    answers = [
        from_address(Browser(server.url), f"127.0.3.{n + 1}")
        .http.get(server.url + HANDSHAKE, headers=cookie, timeout=WAIT)
        .status_code
        for n in range(4)
    ]
    assert answers == [200, 200, 200, 401]
    assert [handshake(server, "127.0.0.9").status_code for _ in range(3)] == [200] * 3
    boris = register(server, "Борис", "127.0.0.2", "correct horse")
    client = boris.socket()
    assert client.call("lobby:join") == {"ok": True}
    client.close()
    with pytest.raises(socketio.exceptions.ConnectionError):
        masha.socket()  # his own three still wait


def test_handshakes_over_ipv6_count_by_the_64(serve: Any) -> None:
    """Behind the trusted proxy, clients of one IPv6 /64 share HANDSHAKES_PER_ADDRESS;
    the next /64 has its own."""
    server = serve(SVARA_TRUST_PROXY="1", SVARA_HANDSHAKES_PER_ADDRESS="2")
    proxy = visitor(server)

    def through(client: str) -> int:
        return proxy.http.get(
            server.url + HANDSHAKE, headers={"X-Forwarded-For": client}, timeout=WAIT
        ).status_code

    assert [through(f"2001:db8:7:7::{n + 1}") for n in range(3)] == [200, 200, 401]
    assert through("2001:db8:7:7:ffff:ffff:ffff:ffff") == 401
    assert through("2001:db8:7:8::1") == 200


# --- logins and sign-ups ----------------------------------------------------------------
def flood(server: Server, first: int, attempt: Any) -> list[int]:
    """From 127.0.<first>.1, .2, …, each within its own limit, `attempt(browser, k)` until
    the global budget answers 429 (bounded: 40 addresses); the codes."""
    codes: list[int] = []
    for n in range(40):
        browser = visitor(server, f"127.0.{first}.{n + 1}")
        for k in range(2):
            codes.append(attempt(browser, k))
            if codes[-1] == 429:
                return codes
    raise AssertionError(f"the global budget was never spent: {codes}")


def test_a_login_flood_leaves_a_player_his_own_password(serve: Any) -> None:
    """Addresses, each within LOGIN_RATE, guess «Иван»'s password until the global budget
    (LOGIN_RATE_TOTAL) is spent: Иван's correct password from his usual address still logs
    him in, and so does Ёж's from his; a newcomer waits a turn (seconds, not the window)."""
    server = serve(
        SVARA_LOGIN_RATE="2/minute",
        SVARA_LOGIN_RATE_TOTAL="30/minute",
        SVARA_LOGIN_NAME_ATTEMPTS="1000",
    )
    register(server, "Иван", "127.0.0.1", "ёлки-палки")
    register(server, "Ёж", "127.0.0.7", "correct horse")
    codes = flood(server, 4, lambda guesser, k: guesser.login("иван", f"пароль {k}").status_code)
    assert set(codes[:-1]) == {401}, codes
    assert visitor(server, "127.0.0.1").login("Иван", "ёлки-палки").status_code == 302
    assert visitor(server, "127.0.0.7").login("Ёж", "correct horse").status_code == 302
    wait = refused_with(
        visitor(server, "127.0.4.99").login("Иван", "ёлки-палки"), "account.too_many"
    )
    assert wait <= 2 * 2, wait  # behind the one flooder holding a turn: two turns of 2 s


def test_guesses_of_one_name_from_many_addresses_are_bounded(serve: Any) -> None:
    """LOGIN_NAME_ATTEMPTS failures of a name from addresses it never logged in from: the
    next guess from yet another address waits; the player from his usual address does not."""
    server = serve(SVARA_LOGIN_NAME_ATTEMPTS="5")
    register(server, "Мария", "127.0.0.1", "correct horse")
    codes = [
        visitor(server, f"127.0.9.{n + 1}").login("МАРИЯ", "не тот пароль").status_code
        for n in range(6)
    ]
    assert codes == [401] * 5 + [429], codes
    assert visitor(server, "127.0.0.1").login("Мария", "correct horse").status_code == 302


def test_a_signup_flood_slows_a_newcomer_by_a_turn(serve: Any) -> None:
    """Addresses sign up accounts until SIGNUP_RATE_TOTAL (20/minute: a turn every 3 s) is
    spent: a newcomer is told to come back in a turn or two (not the rest of the window),
    those who come after him are queued behind him, and when he comes back at his turn his
    sign-up is taken."""
    server = serve(SVARA_SIGNUP_RATE="2/minute", SVARA_SIGNUP_RATE_TOTAL="20/minute")

    letters = "абвгдежзиклмнопрстуф"  # names are letters (app/names.py)
    made = iter(f"{a}{b}" for a in letters for b in letters)

    def sign_up(browser: Browser, k: int) -> int:
        form = {
            "name": f"Гость_{next(made)}",
            "password": "correct horse",
            "confirm": "correct horse",
        }
        return browser.post_form("/register", form).status_code

    codes = flood(server, 5, sign_up)
    assert set(codes[:-1]) == {302}, codes
    form = {"name": "Мария", "password": "correct horse", "confirm": "correct horse"}
    newcomer = visitor(server, "127.0.6.1")
    wait = refused_with(newcomer.post_form("/register", form), "account.too_many_signups")
    assert wait <= 2 * 3, wait  # behind the one flooder holding a turn
    later = [
        refused_with(
            visitor(server, f"127.0.6.{n + 2}").post_form(
                "/register", {**form, "name": f"Ёж_{letters[n]}"}
            ),
            "account.too_many_signups",
        )
        for n in range(3)
    ]
    assert later == sorted(later) and later[0] >= wait, (wait, later)
    threading.Event().wait(wait)  # the turn the server named (Retry-After), no sooner
    assert newcomer.post_form("/register", form).status_code == 302
    assert visitor(server, "127.0.6.1").login("Мария", "correct horse").status_code == 302


def test_the_global_budget_is_not_spent_on_known_players(serve: Any) -> None:
    """Players logging in from their usual addresses take nothing of LOGIN_RATE_TOTAL: with
    a budget of 2, four known logins leave both turns to newcomers."""
    server = serve(SVARA_LOGIN_RATE_TOTAL="2/minute")
    names = ["Иван", "Мария", "Ёж", "Борис"]
    for n, name in enumerate(names):
        register(server, name, f"127.0.7.{n + 1}", "correct horse")
    for n, name in enumerate(names):
        assert visitor(server, f"127.0.7.{n + 1}").login(name, "correct horse").status_code == 302
    for n, name in enumerate(names[:2]):  # from elsewhere: newcomers to the name
        assert visitor(server, f"127.0.8.{n + 1}").login(name, "correct horse").status_code == 302
    refused_with(visitor(server, "127.0.8.9").login("Ёж", "correct horse"), "account.too_many")
