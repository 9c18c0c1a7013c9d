"""A friend with less than the smallest stack at a table of stacks (S-1.5): entering it, or
pressing «Сесть за стол», he is told what is missing and offered «Попросить фишки», never a
buy-in he cannot pay; the money that comes brings the buy-in (docs/rules.md, «No money, no
seat»)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from tests.server.conftest import unique_name
from tests.server.tablekit import admin

from .conftest import DESKTOP, PHONE, TIMEOUT_MS, Crowd, Player, sign_up


def _newcomer(crowd: Crowd, name: str) -> Player:
    """Registered from the page on a phone, with the 0 ₽ every new account has (C-0.1)."""
    context = crowd.chromium.new_context(
        viewport=PHONE, locale="ru-RU", has_touch=True, is_mobile=True
    )
    context.set_default_timeout(TIMEOUT_MS)
    player = Player(unique_name(name), context, context.new_page(), crowd.server.url)
    player.watch()
    crowd.made.append(player)
    player.page.goto(crowd.server.url + "/register")
    sign_up(player.page, player.name)
    player.page.wait_for_url(re.compile(r"/$"))
    return player


def test_a_friend_without_a_stack_is_told_what_is_missing_not_offered_a_buy_in(
    crowd: Crowd, artifacts: Path
) -> None:
    ivan = crowd.add(DESKTOP, "Иван")
    table = ivan.new_table("Стеки «Ёж» " + ivan.name, "shaha36", 6)
    maria = _newcomer(crowd, "Мария")
    page = maria.page
    page.goto(f"{crowd.server.url}/table/{table}")  # entering: a seat is asked for
    note = page.locator(".note")
    expect(note).to_have_text(re.compile(r"^Не хватает денег: ещё .+\s₽ \(нужно .+\s₽\)$"))
    expect(page.locator("#buy-in")).to_be_hidden()
    expect(page.locator("#ask-chips")).to_be_visible()
    expect(page.locator(f'.seat[data-seat="{maria.name}"]')).to_have_count(0)
    maria.shot(artifacts, "buy-in-short")

    # «Сесть за стол» again says the same, still without the dialog.
    page.locator("[data-note-close]").click()
    expect(note).to_have_count(0)
    page.locator('button[data-table-do="sit"]').click()
    expect(note).to_contain_text("Не хватает денег")
    expect(page.locator("#buy-in")).to_be_hidden()

    # The host gives money (`svara admin`, as «Вечер» does): her page hears it, the buy-in
    # opens at once.
    admin(crowd.server, "balance", "grant", maria.name, "1000", "--reason", "на вечер")
    expect(page.locator("#buy-in")).to_be_visible()
    expect(note).to_have_count(0)
    page.locator('#buy-in button[data-buy-in="sit"]').click()
    expect(page.locator(f'.seat[data-seat="{maria.name}"]')).to_be_visible()
    assert maria.errors == [], maria.errors
