"""The host's page over real HTTP (app/admin/web.py): for administrators only, every form with
its CSRF token, every refusal a keyed sentence that changes nothing, and its «Закрыть стол»
the CLI's close (the table ends for everyone at it, its money back in the balances)."""

from __future__ import annotations

import re

from ..conftest import WAIT, Browser, Server, unique_name
from ..tablekit import admin, books, grant

SAID = re.compile(r'<p class="admin-said (ok|refused)"[^>]*data-i18n="([\w.]+)"')


def _host(server: Server) -> Browser:
    browser = Browser(server.url)
    name = unique_name("Иван")
    browser.register(name)
    admin(server, "user", "admin", name, "--grant")
    return browser


def _said(page: str) -> list[tuple[str, str]]:
    return SAID.findall(page)


def test_only_an_administrator_sees_the_page(server: Server) -> None:
    player = Browser(server.url)
    player.register(unique_name("Ёж"))
    assert player.http.get(server.url + "/admin", timeout=WAIT).status_code == 404
    for path in (
        "/admin/grant",
        "/admin/house",
        "/admin/stand",
        "/admin/close",
        "/admin/requests/1",
    ):
        assert player.post_form(path, {}, token_from="/").status_code == 404, path
    visitor = Browser(server.url)
    answer = visitor.http.get(server.url + "/admin", allow_redirects=False, timeout=WAIT)
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/login?next=")


def test_every_refusal_is_a_sentence_and_changes_nothing(server: Server) -> None:
    host = _host(server)
    name = unique_name("Мария")
    Browser(server.url).register(name)
    grant(server, name, 100)
    before = books(server).granted
    cases = [
        ({"name": name, "amount": "500", "reason": "", "do": "give"}, 400, "admin.check_fields"),
        ({"name": name, "amount": "0", "reason": "x", "do": "give"}, 400, "admin.check_fields"),
        ({"name": name, "amount": "-5", "reason": "x", "do": "give"}, 400, "admin.check_fields"),
        ({"name": name, "amount": "1e3", "reason": "x", "do": "give"}, 400, "admin.check_fields"),
        ({"name": name, "amount": str(10**13), "reason": "x"}, 400, "admin.check_fields"),
        ({"name": name, "amount": "500", "reason": "x", "do": "take"}, 409, "admin.overdraft"),
        ({"name": "нет-такого", "amount": "5", "reason": "x"}, 409, "admin.no_user"),
        ({"name": name, "amount": str(10**12), "reason": "x"}, 409, "admin.too_much"),
    ]
    for data, status, key in cases:
        answer = host.post_form("/admin/grant", data, token_from="/admin")
        assert answer.status_code == status, (data, answer.status_code)
        assert _said(answer.text) == [("refused", key)], (data, _said(answer.text))
    no_token = host.http.post(
        server.url + "/admin/grant", data={"name": name, "amount": "5", "reason": "x"}
    )
    assert no_token.status_code == 400
    assert books(server).granted == before
    done = host.post_form("/admin/grant", {"name": name, "amount": "5", "reason": "чай"}, "/admin")
    assert done.status_code == 302 and done.headers["Location"] == "/admin#accounts"
    page = host.http.get(server.url + "/admin", timeout=WAIT).text
    assert _said(page) == [("ok", "admin.granted")]
    assert books(server).granted == before + 5


def test_closing_a_table_from_the_page_ends_it_for_everyone(server: Server) -> None:
    host = _host(server)
    creator = Browser(server.url)
    name = unique_name("Ёж")
    creator.register(name)
    grant(server, name, 1000)
    opened = creator.post_form("/tables", {"name": "До утра", "variant": "shaha36"}, "/")
    table_id = int(opened.headers["Location"].rsplit("/", 1)[1])
    client = creator.socket(table_id)
    try:
        assert client.call("table:join", {"table": table_id})["ok"] is True
        assert client.call("table:sit", {"table": table_id, "stack": 200}) == {"ok": True}
        no_reason = host.post_form("/admin/close", {"table": str(table_id), "reason": ""}, "/admin")
        assert no_reason.status_code == 400
        stand_stranger = host.post_form(
            "/admin/stand", {"table": str(table_id), "name": unique_name("Мария")}, "/admin"
        )
        assert _said(stand_stranger.text) == [("refused", "admin.no_user")]
        closed = host.post_form(
            "/admin/close", {"table": str(table_id), "reason": "вечер окончен"}, "/admin"
        )
        assert closed.status_code == 302 and closed.headers["Location"] == "/admin#tables"
        assert client.wait("table:closed") == {"table": table_id, "reason": "вечер окончен"}
    finally:
        client.close()
    again = host.post_form("/admin/close", {"table": str(table_id), "reason": "ещё"}, "/admin")
    assert _said(again.text) == [("refused", "admin.no_table")]
    shown = admin(server, "balance", "show", name)
    assert shown["balance"] == 1000 and shown["stacks"] == {}
    assert books(server).ok


def test_every_amount_on_the_page_is_written_as_money(server: Server) -> None:
    """docs/i18n.md, «Amounts carry their unit»: a balance, the house, a grant, a request
    and its approval are «5 000 ₽» (app/i18n.py `money`), never «5000 ₽»."""
    host = _host(server)
    name = unique_name("Мария")
    maria = Browser(server.url)
    maria.register(name)
    nb = "\u00a0"
    done = host.post_form(
        "/admin/grant", {"name": name, "amount": "5000", "reason": "вечер"}, "/admin"
    )
    assert done.status_code == 302
    page = host.http.get(server.url + "/admin", timeout=WAIT).text
    assert f"«{name}»: +5{nb}000{nb}₽, на счёте теперь 5{nb}000{nb}₽" in page
    assert f'<td class="account-balance">5{nb}000{nb}₽</td>' in page
    assert re.search(f"В кассе [\\d{nb}]+{nb}₽; у ботов на руках [\\d{nb}]+{nb}₽", page)
    client = maria.socket()
    try:
        asked = client.call("money:ask", {"amount": 1000})
        assert asked["ok"] is True, asked
        page = host.http.get(server.url + "/admin", timeout=WAIT).text
        assert f"{name} просит 1{nb}000{nb}₽" in page
        path = f"/admin/requests/{asked['request']['id']}"
        assert host.post_form(path, {"approve": "1"}, "/admin").status_code == 302
    finally:
        client.close()
    page = host.http.get(server.url + "/admin", timeout=WAIT).text
    assert f"«{name}» получает 1{nb}000{nb}₽ по своей просьбе" in page
    assert f'<td class="account-balance">6{nb}000{nb}₽</td>' in page
    assert re.search(r"\d{4}\s*₽", page) is None
