"""«Попросить фишки» over real sockets (app/admin/requests.py, docs/protocol.md «Money»): a
player asks, every administrator hears it, one approves — an ordinary grant with its ledger
row (reason, who) and the player's new balance at once — or declines; bad input, a second
request, a flood of requests and a player answering are refused with a code and change
nothing; the books balance."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from app.models import MoneyRequest, User

from ..conftest import Browser, Client, Server, unique_name
from ..tablekit import admin, books, database, grants


def _someone(server: Server, prefix: str, host: bool = False) -> tuple[str, Client]:
    browser = Browser(server.url)
    name = unique_name(prefix)
    browser.register(name)
    if host:
        admin(server, "user", "admin", name, "--grant")
    return name, browser.socket()


def _refused(client: Client, event: str, data: Any) -> dict[str, Any]:
    ack = client.call(event, data)
    assert ack["ok"] is False, ack
    error = client.wait("error")
    assert error["event"] == event and error.get("code") == ack.get("code"), (error, ack)
    return ack


def test_an_approved_request_is_a_grant_the_players_pages_see_at_once(server: Server) -> None:
    host, ivan = _someone(server, "Иван", host=True)
    name, yozh = _someone(server, "Ёж")
    before = books(server).granted
    try:
        asked = yozh.call("money:ask", {"amount": 500})
        assert asked["ok"] is True and asked["request"]["amount"] == 500, asked
        heard = ivan.wait("money:asked")
        assert (heard["name"], heard["amount"], heard["status"]) == (name, 500, "waiting")
        assert heard["id"] in [r["id"] for r in ivan.call("money:waiting", {})["requests"]]
        # One waiting at a time; a player neither answers nor lists the requests.
        assert _refused(yozh, "money:ask", {"amount": 10})["code"] == "ask_waiting"
        assert _refused(yozh, "money:answer", {"id": heard["id"], "approve": True})["code"] == (
            "not_admin"
        )
        assert _refused(yozh, "money:waiting", {})["code"] == "not_admin"
        assert books(server).granted == before  # nothing moved
        answered = ivan.call("money:answer", {"id": heard["id"], "approve": True})
        assert answered["ok"] is True and answered["request"]["status"] == "approved"
        told = yozh.wait("money:answered")
        assert (told["status"], told["by"], told["amount"]) == ("approved", host, 500)
        assert yozh.wait("account:balance") == {"balance": 500}
        assert grants(server, name) == [(500, f"request from {name}", host)]
        again = _refused(ivan, "money:answer", {"id": heard["id"], "approve": True})
        assert again["code"] == "ask_answered"
        assert grants(server, name) == [(500, f"request from {name}", host)]
        after = books(server)
        assert after.ok and after.granted == before + 500
    finally:
        ivan.close()
        yozh.close()


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"amount": 0}, "ask_amount"),
        ({"amount": -500}, "ask_amount"),
        ({"amount": 100_001}, "ask_amount"),
        ({"amount": 2**53 - 1}, "ask_amount"),
        ({"amount": 2**60}, None),  # past JSON's exact integers: the protocol's own bound
        ({"amount": "500"}, None),
        ({"amount": 500, "table": "Пятница"}, None),
        ({"amount": 500, "extra": 1}, None),
        ({}, None),
    ],
)
def test_a_bad_request_is_refused_and_nothing_waits(
    server: Server, payload: dict[str, Any], code: str | None
) -> None:
    name, mary = _someone(server, "Мария")
    try:
        ack = mary.call("money:ask", payload)
        assert ack["ok"] is False and ack.get("code") == code, ack
        assert mary.wait("error")["event"] == "money:ask"
    finally:
        mary.close()
    db = database(server)
    with db.session() as s:
        user = s.exec(select(User).where(User.name == name)).one()
        assert s.exec(select(MoneyRequest).where(MoneyRequest.user_id == user.id)).all() == []
    db.dispose()


def test_requests_are_rate_limited(server: Server) -> None:
    """`ASK_RATE` (5 an hour): declined or not, the sixth request within the hour is refused
    with how long to wait."""
    _, ivan = _someone(server, "Иван", host=True)
    _, yozh = _someone(server, "Ёж")
    try:
        for _ in range(5):
            asked = yozh.call("money:ask", {"amount": 50})
            assert asked["ok"] is True, asked
            declined = ivan.call("money:answer", {"id": asked["request"]["id"], "approve": False})
            assert declined["request"]["status"] == "declined"
            assert yozh.wait("money:answered")["status"] == "declined"
        refused = _refused(yozh, "money:ask", {"amount": 50})
        assert refused["code"] == "ask_rate" and refused["seconds"] > 0, refused
    finally:
        ivan.close()
        yozh.close()
