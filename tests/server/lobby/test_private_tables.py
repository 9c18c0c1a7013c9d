"""Private tables over real HTTP and sockets (app/lobby/invites.py, docs/protocol.md «Private
tables»): not listed, reached only through the invite link, and to everyone else exactly a
table that does not exist — the page, every table event, and the lobby's updates."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..conftest import WAIT, Browser, Client, Server, unique_name
from ..tablekit import grant

ROW = re.compile(r'<li class="private-row" data-table-id="(\d+)">.*?value="([^"]+)"', re.S)
MISSING = 10**9  # no table has this id
EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("table:join", {}),
    ("table:join", {"since": 0}),
    ("table:join", {"sit": True}),
    ("table:sit", {}),
    ("table:sit", {"seat": 0}),
    ("table:stand", {}),
    ("table:ready", {}),
    ("table:skip", {}),
    ("table:dark", {}),
    ("table:act", {"version": 0, "do": "fold"}),
    ("table:chat", {"text": "есть кто?"}),
    ("table:chat", {"phrase": 0}),
    ("table:leave", {}),
    ("table:bots", {"fill": True}),
    ("table:host", {"do": "pause"}),
    ("table:ask_speak", {}),
]


def _someone(server: Server, prefix: str) -> Browser:
    browser = Browser(server.url)
    name = unique_name(prefix)
    browser.register(name)
    grant(server, name, 10)  # a seat needs the ante (docs/rules.md, «No money, no seat»)
    return browser


def _private_table(creator: Browser, name: str = "Пятница у Ивана") -> tuple[int, str]:
    """Open a private table from the lobby form; its id and the invite link the creator's
    lobby shows."""
    response = creator.post_form(
        "/tables", {"name": name, "variant": "classic", "private": "y"}, token_from="/"
    )
    assert response.status_code == 302 and response.headers["Location"] == "/#private-tables"
    page = creator.http.get(creator.url + "/", timeout=WAIT).text
    rows = ROW.findall(page)
    assert rows, page
    table_id, link = rows[-1]
    return int(table_id), link


def _answer(client: Client, event: str, table: int, extra: dict[str, Any]) -> tuple[str, str]:
    """The ack and the `error` event of one table event, the table's id written as «ID»."""
    ack = client.call(event, {"table": table, **extra})
    error = client.wait("error")
    return repr(ack).replace(str(table), "ID"), repr(error).replace(str(table), "ID")


def test_a_private_table_is_not_listed_and_its_creator_gets_the_link(server: Server) -> None:
    creator = _someone(server, "Иван")
    table_id, link = _private_table(creator)
    assert re.fullmatch(re.escape(server.url) + r"/invite/[A-Za-z0-9_-]{22}", link), link
    stranger = _someone(server, "Мария")
    assert "Пятница у Ивана" not in stranger.http.get(server.url + "/", timeout=WAIT).text
    client = stranger.socket()
    try:
        client.call("lobby:join", {})
        listed = [t["id"] for t in client.wait("lobby:state")["tables"]]
        assert table_id not in listed
    finally:
        client.close()


def test_to_a_stranger_a_private_table_does_not_exist(server: Server) -> None:
    """The page and every table event answer exactly as for an id no table has; nothing
    is joined, sat or said (the creator's table stays empty)."""
    table_id, _ = _private_table(_someone(server, "Ёж"))
    stranger = _someone(server, "Гость")
    private_page = stranger.http.get(f"{server.url}/table/{table_id}", timeout=WAIT)
    missing_page = stranger.http.get(f"{server.url}/table/{MISSING}", timeout=WAIT)
    assert private_page.status_code == missing_page.status_code == 404
    assert private_page.text == missing_page.text
    client = stranger.socket()
    try:
        for event, extra in EVENTS:
            private = _answer(client, event, table_id, extra)
            missing = _answer(client, event, MISSING, extra)
            assert private == missing, (event, private, missing)
    finally:
        client.close()
    assert stranger.http.get(server.url + "/invite/not-a-token", timeout=WAIT).status_code == 404


def test_the_link_makes_a_guest_who_keeps_his_way_in(server: Server) -> None:
    """A visitor not logged in logs in first and comes back to the link; then he may see,
    sit and talk, and later (a reload, a new socket) needs the link no more."""
    creator = _someone(server, "Ъгъл")
    table_id, link = _private_table(creator, "Софийска маса")
    name = unique_name("Гость")
    Browser(server.url).register(name)
    grant(server, name, 10)  # a seat needs the ante (docs/rules.md, «No money, no seat»)
    guest = Browser(server.url)
    first = guest.http.get(link, allow_redirects=False, timeout=WAIT)
    assert first.status_code == 302 and "/login?next=/invite/" in first.headers["Location"]
    token = guest.csrf("/login")
    back = guest.http.post(
        server.url + "/login",
        params={"next": link.removeprefix(server.url)},
        data={"name": name, "password": "correct horse", "csrf_token": token},
        allow_redirects=False,
        timeout=WAIT,
    )
    assert back.headers["Location"] == link.removeprefix(server.url)
    followed = guest.http.get(link, allow_redirects=False, timeout=WAIT)
    assert followed.headers["Location"] == f"/table/{table_id}"
    page = guest.http.get(f"{server.url}/table/{table_id}", timeout=WAIT)
    assert page.status_code == 200 and "/invite/" not in page.text  # the host's menu only
    hosts = creator.http.get(f"{server.url}/table/{table_id}", timeout=WAIT).text
    assert f'value="{link}"' in hosts  # «Позвать друзей»: the lobby's link, whole
    client = guest.socket()
    try:
        assert client.call("table:join", {"table": table_id})["ok"] is True
        assert client.call("table:sit", {"table": table_id}) == {"ok": True}
    finally:
        client.close()
    again = guest.socket()
    try:
        state = again.call("table:join", {"table": table_id})
        assert state["ok"] is True
        assert name in [s["name"] for s in state["state"]["seats"] if s]
    finally:
        again.close()


def test_the_lobby_hears_nothing_of_a_private_table(server: Server) -> None:
    """A seat taken at a private table told every lobby `lobby:table_closed` with its id:
    proof that a table of that id exists."""
    creator = _someone(server, "Мария")
    table_id, link = _private_table(creator)
    watcher = _someone(server, "Зритель").socket()
    guest = _someone(server, "Гость")
    guest.http.get(link, timeout=WAIT)
    seated = guest.socket()
    try:
        watcher.call("lobby:join", {})
        watcher.wait("lobby:state")
        assert seated.call("table:sit", {"table": table_id}) == {"ok": True}
        assert seated.call("table:stand", {"table": table_id}) == {"ok": True}
        public = creator.post_form(
            "/tables", {"name": "Открытый", "variant": "classic"}, token_from="/"
        )
        assert public.status_code == 302
        watcher.wait("lobby:table")  # the public table, told after the private one's seats
        told = [data for _, data in watcher.seen]
        assert all(table_id != d.get("id") for d in told if isinstance(d, dict)), told
    finally:
        seated.close()
        watcher.close()


def test_the_cli_prints_the_link_that_a_running_server_honours(server: Server) -> None:
    svara = str(Path(sys.executable).with_name("svara"))
    made = subprocess.run(
        [svara, "admin", "--instance", str(server.instance), "table", "create", "Закрытый",
         "--variant", "classic", "--private"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    (path,) = re.findall(r"^invite: (/invite/[A-Za-z0-9_-]{22})$", made.stdout, re.M)
    (table_id,) = re.findall(r"^id: (\d+)$", made.stdout, re.M)
    stranger = _someone(server, "Иван").socket()
    guest = _someone(server, "ёж")
    try:
        assert stranger.call("table:join", {"table": int(table_id)})["code"] == "not_found"
        followed = guest.http.get(server.url + path, allow_redirects=False, timeout=WAIT)
        assert followed.headers["Location"] == f"/table/{table_id}"
        client = guest.socket()
        assert client.call("table:join", {"table": int(table_id)})["ok"] is True
        client.close()
    finally:
        stranger.close()
