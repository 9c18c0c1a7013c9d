"""A link survives the way in (app/lobby/invites.py, app/auth/views.py): the login keeps its
`next` through «Регистрация» and the sign-up goes back to it; only a path of this site is a
`next`; the pages name the table the link is for, a private one only through its invite
link; the creator renews the link and the old one opens nothing."""

from __future__ import annotations

import html
import re

import pytest

from ..conftest import WAIT, Browser, Server, unique_name
from .test_private_tables import _private_table, _someone

INVITED = re.compile(r'<p class="invited" id="invited"[^>]*>([^<]*)</p>')


def _invited(browser: Browser, page: str, target: str) -> str | None:
    """What the login or sign-up page opened with `next=target` says of the table."""
    answer = browser.http.get(browser.url + page, params={"next": target}, timeout=WAIT)
    assert answer.status_code == 200
    found = INVITED.search(answer.text)
    return html.unescape(found.group(1)) if found else None


def test_the_sign_up_goes_back_to_the_invite_link(server: Server) -> None:
    """«Иван»'s friend follows the link logged out: the login page names the table, its
    «Регистрация» keeps the link, the sign-up names it too and ends at the link, which makes
    him the table's guest and opens the table."""
    table_id, link = _private_table(_someone(server, "Иван"), "Пятница")
    path = link.removeprefix(server.url)
    friend = Browser(server.url)
    sent = friend.http.get(link, allow_redirects=False, timeout=WAIT)
    login = sent.headers["Location"]
    assert sent.status_code == 302 and login.startswith("/login?next=/invite/")
    page = friend.http.get(server.url + login, timeout=WAIT).text
    assert "Вас пригласили за стол «Пятница»" in page
    to_register = re.search(r'<a id="to-register" href="([^"]+)"', page)
    assert to_register, page
    signup = html.unescape(to_register.group(1))
    assert _invited(friend, "/register", path) == "Вас пригласили за стол «Пятница»"
    name = unique_name("Ёж")
    done = friend.post_form(
        signup, {"name": name, "password": "correct horse", "confirm": "correct horse"}
    )
    assert done.status_code == 302 and done.headers["Location"] == path
    followed = friend.http.get(link, allow_redirects=False, timeout=WAIT)
    assert followed.headers["Location"] == f"/table/{table_id}"
    assert friend.http.get(f"{server.url}/table/{table_id}", timeout=WAIT).status_code == 200


def test_the_pages_name_a_private_table_only_through_its_link(server: Server) -> None:
    """A private table's id, a closed or unknown link and any other page name nothing; a
    public table's page and a private table's invite link name the table."""
    creator = _someone(server, "Мария")
    table_id, link = _private_table(creator, "Тайный стол")
    public = creator.post_form("/tables", {"name": "Открытый «Ёж»", "variant": "classic"}, "/")
    public_id = int(public.headers["Location"].rsplit("/", 1)[1])
    visitor = Browser(server.url)
    for page in ("/login", "/register"):
        assert _invited(visitor, page, link.removeprefix(server.url)) == (
            "Вас пригласили за стол «Тайный стол»"
        )
        assert _invited(visitor, page, f"/table/{public_id}") == (
            "Вас пригласили за стол «Открытый «Ёж»»"
        )
        for nothing in (f"/table/{table_id}", "/invite/AAAAAAAAAAAAAAAAAAAAAA", "/", "/hands"):
            assert _invited(visitor, page, nothing) is None, (page, nothing)


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example",
        "///evil.example",
        "/\\evil.example",
        "https://evil.example/",
        "javascript:alert(1)",
        "evil.example",
        "/" + "a" * 600,
    ],
)
def test_a_next_that_is_not_a_path_of_this_site_goes_to_the_lobby(
    server: Server, target: str
) -> None:
    """No open redirect: after the sign-up and after the login, a `next` that could lead to
    another site (or is no link of ours) is dropped for the lobby."""
    browser = Browser(server.url)
    name = unique_name("Ёж")
    signup = f"/register?next={target}"
    done = browser.post_form(
        signup, {"name": name, "password": "correct horse", "confirm": "correct horse"}
    )
    assert done.status_code == 302 and done.headers["Location"] == "/", done.headers
    browser.post_form("/logout", {}, token_from="/")
    back = browser.post_form(
        f"/login?next={target}", {"name": name, "password": "correct horse"}, "/login"
    )
    assert back.status_code == 302 and back.headers["Location"] == "/", back.headers


def test_the_creator_renews_the_link_and_the_old_one_opens_nothing(server: Server) -> None:
    creator = _someone(server, "Иван")
    table_id, old = _private_table(creator, "Пятница")
    guest = _someone(server, "Мария")
    assert guest.http.get(old, allow_redirects=False, timeout=WAIT).status_code == 302
    stranger = _someone(server, "Ёж")
    refused = stranger.post_form(f"/tables/{table_id}/invite", {}, token_from="/")
    assert refused.status_code == 404  # not his table: as if there were none
    renewed = creator.post_form(f"/tables/{table_id}/invite", {}, token_from="/")
    assert renewed.status_code == 302 and renewed.headers["Location"] == "/#private-tables"
    page = creator.http.get(server.url + "/", timeout=WAIT).text
    new = dict(
        (int(i), link)
        for i, link in re.findall(
            r'<li class="private-row" data-table-id="(\d+)">.*?value="([^"]+)"', page, re.S
        )
    )[table_id]
    assert new != old
    assert stranger.http.get(old, allow_redirects=False, timeout=WAIT).status_code == 404
    assert _invited(Browser(server.url), "/login", old.removeprefix(server.url)) is None
    assert stranger.http.get(new, allow_redirects=False, timeout=WAIT).status_code == 302
    # Who came through the old link stays the table's guest.
    assert guest.http.get(f"{server.url}/table/{table_id}", timeout=WAIT).status_code == 200
