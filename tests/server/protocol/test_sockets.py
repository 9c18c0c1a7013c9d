"""Socket.IO over a real server with real clients, under eventlet and threading
(docs/protocol.md; C-8.2, C-8.4)."""

from __future__ import annotations

import pytest
import socketio
from sqlalchemy import update

from app.models import Database, User

from ..conftest import WAIT, Browser, Client, Server, unique_name


def test_a_socket_without_a_session_is_refused(server: Server) -> None:
    for cookie in ("", "session=forged.value.here"):
        client = Client()
        with pytest.raises(socketio.exceptions.ConnectionError):
            client.connect(server.url, cookie)
        assert client.refusal == {"message": "login required"}


def test_a_banned_players_session_is_refused(server: Server) -> None:
    browser = Browser(server.url)
    name = unique_name()
    browser.register(name)
    db = Database(f"sqlite:///{server.instance / 'svara.db'}")
    with db.session() as s:
        s.execute(update(User).where(User.name == name).values(banned=True))
    db.dispose()
    client = Client()
    with pytest.raises(socketio.exceptions.ConnectionError):
        client.connect(server.url, browser.cookie_header())
    assert client.refusal == {"message": "login required"}


def test_only_a_second_page_of_the_same_table_takes_over(server: Server) -> None:
    """C-8.2: the account's lobby in another browser or tab takes nothing over; a second
    connection for the same table does: the old one is told which table and why and is
    closed, and events for the player reach only the new one."""
    name = unique_name("Ёж")
    Browser(server.url).register(name, "pass-word-1")
    first_browser, second_browser = Browser(server.url), Browser(server.url)
    assert first_browser.login(name, "pass-word-1").status_code == 302
    assert second_browser.login(name, "pass-word-1").status_code == 302
    old = first_browser.socket(1)  # the demo table's page
    assert old.call("table:join", {"table": 1})["ok"]
    lobby = second_browser.socket()
    assert lobby.call("lobby:join") == {"ok": True}
    assert lobby.wait("lobby:state")["tables"]
    assert old.call("table:join", {"table": 1})["ok"]  # still current, and told nothing
    assert old.sio.connected and not any(n == "session:taken_over" for n, _ in old.seen)
    new = second_browser.socket(1)
    assert old.wait("session:taken_over") == {"reason": "opened elsewhere", "table": 1}
    assert old.disconnected.wait(WAIT)
    assert new.call("table:join", {"table": 1})["ok"]
    assert lobby.call("lobby:join") == {"ok": True}  # the lobby's connection is still there
    for client in (lobby, new):
        client.close()


def test_a_handshake_of_another_shape_is_refused(player: tuple[Browser, Client, str]) -> None:
    """docs/protocol.md «Connecting»: the handshake's data is nothing or `{"table": id}`."""
    browser, client, _ = player
    for auth, why in (
        ({"table": "1"}, "auth: field 'table' must be integer"),
        ({"table": True}, "auth: field 'table' must be integer"),
        ({"table": 0}, "auth: field 'table' must be a table id"),
        ({"table": 2**60}, "auth: field 'table' must be between"),
        ({"seat": 1}, "auth: unknown field 'seat'"),
    ):
        refused = Client()
        with pytest.raises(socketio.exceptions.ConnectionError):
            refused.connect(browser.url, browser.cookie_header(), auth)
        assert refused.refusal["message"].startswith(why), refused.refusal
    assert client.call("lobby:join") == {"ok": True}  # the refusals took nothing over


def test_logout_closes_every_tab(player: tuple[Browser, Client, str]) -> None:
    """The tabs of one browser share its session: a logout ends each one's connection."""
    browser, client, _ = player
    table_tab = browser.socket(1)
    assert browser.post_form("/logout", {}, token_from="/").status_code == 302
    for tab in (client, table_tab):
        assert tab.wait("session:ended") == {"reason": "logged out"}
        assert tab.disconnected.wait(WAIT)


def test_lobby_lists_tables_and_follows_changes(server: Server) -> None:
    """C-1.2, docs/protocol.md «Lobby»: variant, stakes, seats taken, queue; a new table appears
    live; a private one is never listed."""
    watcher_browser = Browser(server.url)
    watcher_browser.register(unique_name())
    watcher = watcher_browser.socket()
    watcher.call("lobby:join")
    tables = watcher.wait("lobby:state")["tables"]
    demo = next(t for t in tables if t["name"] == "Демо")
    assert demo["variant"] == "classic" and demo["game"] == "classic"
    assert demo["stakes"] == {"ante": 10}
    assert (demo["seats"], demo["seated"], demo["queue"]) == (8, 0, 0)

    creator = Browser(server.url)
    creator.register(unique_name())
    for name, private in (("hidden one", {"private": "y"}), ("open one", {})):
        form = {"name": name, "variant": "shaha36", "seats": "4", **private}
        assert creator.post_form("/tables", form, token_from="/").status_code == 302
    listed = watcher.wait("lobby:table")
    assert listed["name"] == "open one" and listed["variant"] == "shaha36"
    assert listed["seats"] == 4 and listed["stakes"] == {"ante": 10, "buy_in": [200, 1000]}
    assert not any(e == "lobby:table" and d["name"] == "hidden one" for e, d in watcher.seen)

    refused = creator.post_form(
        "/tables", {"name": "too many", "variant": "shaha36", "seats": "8"}, token_from="/"
    )
    assert refused.status_code == 400 and "Мест за этим столом: от 2 до 6" in refused.text
    again = watcher_browser.socket()  # another tab: a fresh list
    again.call("lobby:join")
    names = [t["name"] for t in again.wait("lobby:state")["tables"]]
    assert "open one" in names and "hidden one" not in names and "too many" not in names
    again.close()


def test_lobby_chat(server: Server) -> None:
    """C-8.4: the lobby chat reaches everyone in the lobby as plain text (the page escapes
    it), the last lines are sent on joining, and it is bounded and rate limited."""
    alice_browser, bob_browser = Browser(server.url), Browser(server.url)
    alice_name, bob_name = unique_name("alice"), unique_name("bob")
    alice_browser.register(alice_name)
    bob_browser.register(bob_name)
    alice, bob = alice_browser.socket(), bob_browser.socket()
    for c in (alice, bob):
        c.call("lobby:join")
        c.wait("lobby:state")
    assert alice.call("lobby:chat", {"text": "  <b>привет</b>\n  всем "}) == {"ok": True}
    for c in (alice, bob):
        line = c.wait("lobby:chat")
        assert (line["from"], line["text"]) == (alice_name, "<b>привет</b> всем")

    for text, reason in (("x" * 301, "longer than 300"), ("   ", "empty")):
        assert alice.call("lobby:chat", {"text": text})["ok"] is False
        assert reason in alice.wait("error")["reason"]
    for i in range(4):
        assert alice.call("lobby:chat", {"text": f"line {i}"}) == {"ok": True}
    too_fast = alice.call("lobby:chat", {"text": "one too many"})
    assert too_fast["ok"] is False and "too many messages" in too_fast["error"]
    assert alice.wait("error")["event"] == "lobby:chat"

    carol_browser = Browser(server.url)
    carol_browser.register(unique_name("carol"))
    carol = carol_browser.socket()
    carol.call("lobby:join")
    history = [line["text"] for line in carol.wait("lobby:state")["chat"]]
    assert history[-5:] == ["<b>привет</b> всем", "line 0", "line 1", "line 2", "line 3"]
    assert "one too many" not in history
    for c in (alice, bob, carol):
        c.close()


def test_chat_needs_the_lobby(player: tuple[Browser, Client, str]) -> None:
    _, client, _ = player
    assert client.call("lobby:chat", {"text": "hello"})["error"] == "join the lobby first"
    client.call("lobby:join")
    client.wait("lobby:state")
    client.call("lobby:leave")
    assert client.call("lobby:chat", {"text": "hello"})["error"] == "join the lobby first"


@pytest.mark.parametrize(
    ("event", "payload", "reason"),
    [
        ("no:such", {}, "unknown event 'no:such'"),
        ("lobby:chat", "text", "the payload must be an object"),
        ("lobby:chat", [1, 2], "the payload must be an object"),
        ("lobby:chat", {}, "missing field 'text'"),
        ("lobby:chat", {"text": 5}, "field 'text' must be string"),
        ("lobby:chat", {"text": None}, "field 'text' must be string"),
        ("lobby:chat", {"text": "hi", "to": "x"}, "unknown field 'to'"),
        ("lobby:join", {"table": 1}, "unknown field 'table'"),
    ],
)
def test_an_invalid_event_gets_an_error_and_changes_nothing(
    player: tuple[Browser, Client, str], event: str, payload: object, reason: str
) -> None:
    _, client, _ = player
    client.call("lobby:join")
    before = client.wait("lobby:state")["chat"]
    ack = client.call(event, payload)
    assert ack == {"ok": False, "error": reason}
    assert client.wait("error") == {"event": event, "reason": reason}
    assert client.call("lobby:join") == {"ok": True}
    assert client.wait("lobby:state")["chat"] == before
    assert not [e for e, _ in client.seen if e == "lobby:chat"]


def test_a_page_of_another_site_cannot_connect(server: Server) -> None:
    """Cross-site WebSocket hijacking: the Engine.IO handshake is refused for a foreign
    Origin even with the player's cookie, and accepted for the server's own."""
    browser = Browser(server.url)
    browser.register(unique_name())
    handshake = f"{server.url}/socket.io/?EIO=4&transport=polling"
    for origin, status in (("http://evil.example", 400), (server.url, 200)):
        response = browser.http.get(handshake, headers={"Origin": origin}, timeout=WAIT)
        assert response.status_code == status, origin
