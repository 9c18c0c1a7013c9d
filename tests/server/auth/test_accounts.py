"""Register, log in, log out over real HTTP (C-0.1)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import requests
import socketio
from sqlmodel import select

from app import ledger
from app.models import Database, User

from ..conftest import WAIT, Browser, Client, Server, unique_name


@pytest.fixture
def db(server: Server) -> Iterator[Database]:
    """The running server's own database, read from the test (SQLite in WAL mode)."""
    database = Database(f"sqlite:///{server.instance / 'svara.db'}")
    yield database
    database.dispose()


def test_register_opens_an_account_with_balance_zero(browser: Browser, db: Database) -> None:
    """C-0.1: a new account starts with balance 0, and the player is logged in."""
    name = unique_name("Игрок")
    response = browser.register(name)
    assert response.headers["Location"] == "/"
    assert browser.http.get(browser.url + "/", timeout=WAIT).status_code == 200
    with db.session() as s:
        user = s.exec(select(User).where(User.name == name)).one()
        assert not user.is_admin and not user.banned
        assert user.password_hash.startswith("$argon2")
        assert user.id is not None
        assert ledger.user_balance(s, user.id) == 0


def test_the_session_cookie_is_httponly_and_samesite_lax(browser: Browser) -> None:
    response = browser.register(unique_name())
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie


@pytest.mark.parametrize(
    ("name", "password", "confirm", "message"),
    [
        ("pot", "long enough", "long enough", "reserved"),
        ("HOUSE", "long enough", "long enough", "reserved"),
        ("a", "long enough", "long enough", "2 to 24"),
        ("bad name", "long enough", "long enough", "letters, digits"),
        ("shortpw", "short", "short", "не короче 8"),
        ("mismatch", "long enough", "long enough!", 'data-i18n="form.mismatch">Пароли не'),
        ("", "long enough", "long enough", 'data-i18n="form.required">Заполните это поле'),
        ("x" * 65, "long enough", "long enough", 'data-i18n="form.too_long">Слишком длинное'),
    ],
)
def test_register_refuses(
    browser: Browser, name: str, password: str, confirm: str, message: str
) -> None:
    response = browser.post_form(
        "/register", {"name": name, "password": password, "confirm": confirm}
    )
    assert response.status_code == 400
    assert message in response.text
    assert "This field" not in response.text and "Field cannot" not in response.text  # WTForms'
    assert (
        "session" not in browser.http.cookies
        or browser.http.get(browser.url + "/", allow_redirects=False, timeout=WAIT).status_code
        == 302
    )


def test_a_name_is_taken_regardless_of_case(server: Server) -> None:
    name = unique_name("Case")
    Browser(server.url).register(name)
    response = Browser(server.url).post_form(
        "/register", {"name": name.upper(), "password": "long enough", "confirm": "long enough"}
    )
    assert response.status_code == 400 and "taken" in response.text


def test_login_logout(server: Server) -> None:
    name = unique_name()
    Browser(server.url).register(name, "s3cret-pass")
    browser = Browser(server.url)
    assert browser.http.get(server.url + "/", allow_redirects=False).status_code == 302
    assert browser.login(name, "wrong-pass").status_code == 401
    response = browser.login(name, "s3cret-pass")
    assert response.status_code == 302 and response.headers["Location"] == "/"
    assert browser.http.get(server.url + "/", allow_redirects=False).status_code == 200
    assert browser.post_form("/logout", {}, token_from="/").status_code == 302
    assert browser.http.get(server.url + "/", allow_redirects=False).status_code == 302


def test_login_goes_back_only_to_a_local_page(server: Server) -> None:
    name = unique_name()
    Browser(server.url).register(name, "s3cret-pass")
    for target, expected in (
        ("/?x=1", "/?x=1"),
        ("//evil.example/", "/"),
        ("https://evil.example/", "/"),
    ):
        browser = Browser(server.url)
        token = browser.csrf("/login")
        response = browser.http.post(
            f"{server.url}/login",
            params={"next": target},
            data={"name": name, "password": "s3cret-pass", "csrf_token": token},
            allow_redirects=False,
        )
        assert response.headers["Location"] == expected


def test_the_settings_page_keeps_a_local_next_for_the_way_in(server: Server) -> None:
    """docs/i18n.md: a visitor who opens «Настройки» on his way in from an invite link
    keeps it in «Вход» and «Регистрация» there; another site's address is never carried."""
    for target, kept in (
        ("/invite/abc_DEF-1", True),
        ("//evil.example/", False),
        ("https://evil.example/", False),
    ):
        page = requests.get(f"{server.url}/settings", params={"next": target}, timeout=WAIT)
        assert page.status_code == 200
        carried = re.search(r'href="/register\?next=(%2F|/)invite(%2F|/)abc_DEF-1"', page.text)
        assert (carried is not None) is kept, target
        assert "evil.example" not in page.text
    # «ЁжИк…», spelled as he writes himself, signs up from that link: on to the invite.
    page = requests.get(f"{server.url}/settings", params={"next": "/invite/abc"}, timeout=WAIT)
    link = re.search(r'href="(/register\?next=[^"]+)"', page.text)
    assert link is not None
    visitor = Browser(server.url)
    token = visitor.csrf(link.group(1))
    name = unique_name("ЁжИк")
    signed = visitor.http.post(
        server.url + link.group(1),
        data={"name": name, "password": "s3cret-pass", "confirm": "s3cret-pass",
              "csrf_token": token},
        allow_redirects=False,
        timeout=WAIT,
    )  # fmt: skip
    assert signed.status_code == 302, signed.text[-600:]
    assert signed.headers["Location"] == "/invite/abc"
    assert visitor.http.get(f"{server.url}/", timeout=WAIT).text.count(name) >= 1
    login = requests.get(f"{server.url}/login", params={"next": "/invite/abc"}, timeout=WAIT)
    assert re.search(r'href="/settings\?next=(%2F|/)invite(%2F|/)abc"', login.text)  # the footer's


def test_forms_without_a_csrf_token_are_refused(server: Server) -> None:
    """A form posted from another site (no token from our page) changes nothing."""
    name = unique_name()
    http = requests.Session()
    form = {"name": name, "password": "long enough", "confirm": "long enough"}
    assert http.post(server.url + "/register", data=form, timeout=WAIT).status_code == 400
    form["csrf_token"] = "forged"
    assert http.post(server.url + "/register", data=form, timeout=WAIT).status_code == 400
    browser = Browser(server.url)
    assert browser.login(name, "long enough").status_code == 401  # was never created
    browser.register(name, "long enough")
    logout = browser.http.post(server.url + "/logout", data={}, allow_redirects=False)
    assert logout.status_code == 400
    assert browser.http.get(server.url + "/", allow_redirects=False).status_code == 200


def test_login_rate_limit_per_address_and_name(server: Server) -> None:
    """After 5 failures for a name from one address, even the right password waits; another
    name from the same address is not affected."""
    victim, other = unique_name(), unique_name()
    for name in (victim, other):
        Browser(server.url).register(name, "right-password")
    browser = Browser(server.url)
    for _ in range(5):
        assert browser.login(victim, "wrong-password").status_code == 401
    refused = browser.login(victim, "right-password")
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 0
    assert browser.login(victim.upper(), "right-password").status_code == 429
    assert browser.login(other, "right-password").status_code == 302


def test_logout_ends_copies_of_the_session_too(server: Server) -> None:
    """The session is a signed cookie; logging out still revokes every copy of it (and the
    user's other sessions), over HTTP and for Socket.IO."""
    name = unique_name()
    browser = Browser(server.url)
    browser.register(name, "pass-word-1")
    elsewhere = Browser(server.url)
    assert elsewhere.login(name, "pass-word-1").status_code == 302
    copied = browser.cookie_header()
    assert browser.post_form("/logout", {}, token_from="/").status_code == 302
    for cookie in (copied, elsewhere.cookie_header()):
        page = requests.get(
            server.url + "/", headers={"Cookie": cookie}, allow_redirects=False, timeout=WAIT
        )
        assert page.status_code == 302
        client = Client()
        with pytest.raises(socketio.exceptions.ConnectionError):
            client.connect(server.url, cookie)
        assert client.refusal == {"message": "login required"}
    assert browser.login(name, "pass-word-1").status_code == 302
    assert browser.http.get(server.url + "/", allow_redirects=False).status_code == 200
