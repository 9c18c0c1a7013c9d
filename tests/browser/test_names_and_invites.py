"""In Chromium: a taken name's «Имя … уже занято» on the registration page, and a private
table opened from the lobby form whose invite link the creator copies and a friend opens."""

from __future__ import annotations

import re

from playwright.sync_api import Browser
from playwright.sync_api import expect as pw_expect

from tests.server.conftest import Server, unique_name

from .conftest import PHONE, Player


def _person(web: Server, chromium: Browser, name: str) -> Player:
    context = chromium.new_context(viewport=PHONE)
    player = Player(name, context, context.new_page(), web.url)
    player.watch()
    return player


def test_a_taken_name_says_so_in_the_players_words(web: Server, chromium: Browser) -> None:
    ivan = _person(web, chromium, unique_name("Иван"))
    ivan.register()
    again = _person(web, chromium, ivan.name.lower())
    again.fill_registration()
    page = again.page
    pw_expect(page.locator(".form-error")).to_have_text(f"Имя «{again.name}» уже занято")
    assert page.url.endswith("/register")
    assert ivan.errors == []
    assert all("status of 400" in e for e in again.errors), again.errors  # the refused form
    for person in (ivan, again):
        person.context.close()


def test_a_private_table_through_its_invite_link(web: Server, chromium: Browser) -> None:
    host = _person(web, chromium, unique_name("Мария"))
    host.register()
    page = host.page
    page.fill("#new-table input[name=name]", "Только свои")
    page.check("#new-table input[name=private]")
    page.click("#new-table button[type=submit]")
    pw_expect(page).to_have_url(re.compile(r"/#private-tables$"))
    pw_expect(page.locator("#table-rows")).not_to_contain_text("Только свои")
    link = page.locator(".private-row", has_text="Только свои").locator(".invite-link")
    url = link.input_value()
    assert re.fullmatch(re.escape(web.url) + r"/invite/[A-Za-z0-9_-]{22}", url), url
    friend = _person(web, chromium, unique_name("Ёж"))
    friend.register()
    friend.page.goto(url)
    pw_expect(friend.page).to_have_url(re.compile(r"/table/\d+$"))
    pw_expect(friend.page.locator(".seat").first).to_be_visible()
    for person in (host, friend):
        assert person.errors == []
        person.context.close()
