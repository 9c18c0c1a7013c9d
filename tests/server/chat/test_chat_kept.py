"""C-8.4: the table chats and the lobby chat are kept in the database — a line said is shown
to whoever joins later, also after the server was killed and started again; a closed
table's lines stay stored but are served to no one; the bound and the rate limit refuse as
before."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from app.chat import PHRASES
from app.models import ChatLine

from ..conftest import ASYNC_MODES, Browser, Client, Server, start_server, unique_name
from ..tablekit import SCALE, Player, close_in_db, database, new_table, refused

KEEP = 3  # CHAT_KEEP for these servers: fewer lines than are said, so «the last N» shows


def kept_server(instance: Path, mode: str) -> Server:
    return start_server(instance, mode, SVARA_TIMER_SCALE=str(SCALE), SVARA_CHAT_KEEP=str(KEEP))


def restarted(server: Server, mode: str) -> Server:
    """`kill -9` and a new process on the same instance: only what was committed is left."""
    server.stop(signal.SIGKILL)
    return kept_server(server.instance, mode)


def in_lobby(server: Server) -> tuple[Client, list[dict[str, Any]]]:
    """A new user's socket in the lobby, and the chat lines it was sent on joining."""
    browser = Browser(server.url)
    browser.register(unique_name("l"))
    client = browser.socket()
    client.call("lobby:join")
    return client, client.wait("lobby:state")["chat"]


def texts(lines: list[dict[str, Any]]) -> list[str]:
    return [line["text"] for line in lines]


def stored(server: Server, table_id: int | None) -> list[str]:
    db = database(server)
    with db.session() as s:
        query = select(ChatLine).where(ChatLine.table_id == table_id).order_by(ChatLine.id)
        found = [row.text for row in s.exec(query).all()]
    db.dispose()
    return found


@pytest.mark.parametrize("mode", ASYNC_MODES)
def test_table_and_lobby_chat_outlive_a_restart(tmp_path: Path, mode: str) -> None:
    """A line said at a table is shown to a player who joins later; after `kill -9` and a
    new start the last CHAT_KEEP lines of the table and of the lobby are still served, with
    their author, time and phrase number, and each chat only its own."""
    server = kept_server(tmp_path, mode)
    table, other = new_table(server, "classic"), new_table(server, "classic")
    anna, boris = Player(server, table), Player(server, table)
    anna.join()
    assert anna.call("table:chat", text="первая") == {"ok": True}
    assert anna.call("table:chat", phrase=3) == {"ok": True}
    said = [anna.event("table:chat") for _ in range(2)]
    # On joining, the lines as they were sent, without the table's id.
    assert boris.join()["chat"] == [{k: v for k, v in x.items() if k != "table"} for x in said]
    for text in ("вторая", "третья"):
        assert boris.call("table:chat", text=text) == {"ok": True}
    shouting, lobby_before = in_lobby(server)
    assert shouting.call("lobby:chat", {"text": "<b>всем</b> привет"}) == {"ok": True}
    lobby_line = shouting.wait("lobby:chat")
    before = Player(server, table).join()["chat"]
    assert texts(before) == [PHRASES[3], "вторая", "третья"]  # the last KEEP of four

    server = restarted(server, mode)
    try:
        newcomer = Player(server, table)
        assert newcomer.join()["chat"] == before
        assert Player(server, other).join()["chat"] == []
        _, lobby_after = in_lobby(server)
        assert lobby_after == [*lobby_before, lobby_line][-KEEP:]
        assert lobby_after[-1]["from"] == lobby_line["from"]
        page = newcomer.browser.http.get(server.url + "/").text
        assert "&lt;b&gt;всем&lt;/b&gt; привет" in page and "<b>всем</b>" not in page
        assert stored(server, table) == ["первая", PHRASES[3], "вторая", "третья"]
    finally:
        server.stop()


@pytest.mark.parametrize("mode", ASYNC_MODES)
def test_after_a_restart_the_bound_and_the_rate_limit_refuse_as_before(
    tmp_path: Path, mode: str
) -> None:
    """The same refusals (code `chat`, the same reasons) after a restart, and a refused line
    is neither stored nor shown to anyone joining."""
    server = restarted(kept_server(tmp_path, mode), mode)
    try:
        table = new_table(server, "classic")
        anna = Player(server, table)
        anna.join()
        too_long = refused(anna, "table:chat", {"table": table, "text": "x" * 301}, "chat")
        assert too_long["reason"] == "message longer than 300 characters"
        assert refused(anna, "table:chat", {"table": table, "text": " \n "}, "chat")["reason"] == (
            "empty message"
        )
        for i in range(5):
            assert anna.call("table:chat", text=f"строка {i}") == {"ok": True}
        too_fast = refused(anna, "table:chat", {"table": table, "text": "лишняя"}, "chat")
        assert too_fast["reason"] == "too many messages: at most 5 in 10 s"
        assert texts(Player(server, table).join()["chat"]) == ["строка 2", "строка 3", "строка 4"]
        assert stored(server, table) == [f"строка {i}" for i in range(5)]

        lobby, _ = in_lobby(server)
        for i in range(5):
            assert lobby.call("lobby:chat", {"text": f"лобби {i}"}) == {"ok": True}
        assert lobby.call("lobby:chat", {"text": "x" * 301})["error"] == (
            "message longer than 300 characters"
        )
        assert lobby.call("lobby:chat", {"text": "лишняя"})["error"] == (
            "too many messages: at most 5 in 10 s"
        )
        assert texts(in_lobby(server)[1]) == ["лобби 2", "лобби 3", "лобби 4"]
        assert stored(server, None) == [f"лобби {i}" for i in range(5)]
    finally:
        server.stop()


@pytest.mark.parametrize("mode", ASYNC_MODES)
def test_a_closed_tables_lines_stay_stored_but_are_not_served(tmp_path: Path, mode: str) -> None:
    """A table closed (here while the server is down) can no longer be joined, so its chat
    is shown to no one; its lines are still in the database, and no other chat shows them."""
    server = kept_server(tmp_path, mode)
    table = new_table(server, "classic")
    anna = Player(server, table)
    anna.join()
    assert anna.call("table:chat", text="до закрытия") == {"ok": True}
    server.stop()
    close_in_db(server, table)
    server = kept_server(tmp_path, mode)
    try:
        late = Player(server, table)
        refused(late, "table:join", {"table": table}, "not_found")
        assert in_lobby(server)[1] == []
        assert Player(server, new_table(server, "classic")).join()["chat"] == []
        assert stored(server, table) == ["до закрытия"]
    finally:
        server.stop()
