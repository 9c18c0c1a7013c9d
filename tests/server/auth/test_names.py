"""Names as people write them, over real HTTP and sockets (app/names.py): a Cyrillic name
logs in again in any case, a taken, look-alike or bot's name is a form's refusal (400 with
its words' key), never a 500, and the name is shown as its owner wrote it."""

from __future__ import annotations

import pytest

from ..conftest import WAIT, Browser, Server, unique_name

PASSWORD = "correct horse"


def _register(server: Server, name: str) -> tuple[int, str]:
    response = Browser(server.url).post_form(
        "/register", {"name": name, "password": PASSWORD, "confirm": PASSWORD}
    )
    return response.status_code, response.text


def test_a_cyrillic_name_logs_in_again_in_any_case(server: Server) -> None:
    """«Иван» could register but never log in again: SQLite's lower() folds only ASCII."""
    name = unique_name("Иван")
    Browser(server.url).register(name, PASSWORD)
    for typed in (name, name.lower(), name.upper()):
        response = Browser(server.url).login(typed, PASSWORD)
        assert response.status_code == 302, (typed, response.status_code)


def test_the_name_is_shown_as_written_whoever_types_it(server: Server) -> None:
    """Logged in as «ёж…», the player is «Ёж…» in the lobby chat."""
    name = unique_name("Ёж")
    Browser(server.url).register(name, PASSWORD)
    browser = Browser(server.url)
    assert browser.login(name.lower(), PASSWORD).status_code == 302
    client = browser.socket()
    try:
        client.call("lobby:join", {})
        assert client.call("lobby:chat", {"text": "привет"}) == {"ok": True}
        assert client.wait("lobby:chat", WAIT)["from"] == name
    finally:
        client.close()


@pytest.mark.parametrize(
    ("first", "second", "key"),
    [
        ("Иван", "Иван", "account.name_taken"),  # the very same: an HTTP 500 before
        ("Иван", "иван", "account.name_taken"),  # a second account before
        ("Ъгъл", "ЪГЪЛ", "account.name_taken"),
        ("Ivan", "Ｉｖａｎ", "account.name_taken"),
        ("Ace", "Асе", "account.name_lookalike"),  # Cyrillic letters drawn as Latin ones
        ("Anna", "Аnnа", "account.name_scripts"),
    ],
)
def test_a_taken_name_is_refused_with_its_words(
    server: Server, first: str, second: str, key: str
) -> None:
    suffix = unique_name("_")
    Browser(server.url).register(first + suffix, PASSWORD)
    status, page = _register(server, second + suffix)
    assert status == 400, page[:300]
    assert f'data-i18n="{key}"' in page


@pytest.mark.parametrize("name", ["Гэри", "гэри", "ГЭРИ"])
def test_a_bots_name_is_reserved(server: Server, name: str) -> None:
    status, page = _register(server, name)
    assert status == 400 and 'data-i18n="account.name_reserved"' in page


def test_an_emoji_name_is_refused_clearly(server: Server) -> None:
    status, page = _register(server, unique_name("Маша") + "🃏")
    assert status == 400 and 'data-i18n="account.name_letters"' in page
