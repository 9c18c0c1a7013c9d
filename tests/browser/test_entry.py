"""Entering a table in Chromium (C-1.2, docs/rules.md «No money, no seat»): «Играть» from
the lobby seats the player at once, «Смотреть» opens the table to watch, and a player
without the ante is told how much is missing — in Russian, English and Bulgarian."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.server.tablekit import grant

from .conftest import DESKTOP, PHONE, Crowd
from .test_languages import choose_language, shots


def row_link(page: Page, table_id: int, which: str) -> Locator:
    """The «Играть» or «Смотреть» link of a table's row in the lobby."""
    return page.locator(f'.table-row[data-table-id="{table_id}"] .table-links a.{which}')


def test_play_seats_and_watch_watches_from_the_lobby(crowd: Crowd, artifacts: Path) -> None:
    """Иван opens a table («Открыть стол»): he sits at once. Мария presses «Играть» in the
    lobby: she sits too, with «Готов» offered and no «Сесть за стол». Ёж presses «Смотреть»:
    he watches («Вы смотрите игру») and may still sit by choice."""
    ivan, maria, yozh = (
        crowd.add(DESKTOP, "Иван"),
        crowd.add(PHONE, "Мария"),
        crowd.add(PHONE, "Ёж"),
    )
    table_id = ivan.new_table("Вечер " + ivan.name, "classic", 4)
    expect(ivan.page.locator(f'.seat[data-seat="{ivan.name}"]')).to_be_visible()
    expect(ivan.bar("Сесть за стол")).to_have_count(0)
    for who, which in ((maria, "play"), (yozh, "watch")):
        who.page.goto(who.base + "/")
        link = row_link(who.page, table_id, which)
        expect(link).to_have_text("Играть" if which == "play" else "Смотреть")
        if who is maria:
            shots(maria, artifacts, "lobby-play-watch")
        link.click()
        expect(who.page.locator(".seat").first).to_be_visible()
    expect(maria.page.locator(f'.seat[data-seat="{maria.name}"]')).to_be_visible()
    expect(maria.bar("Готов")).to_have_count(1)
    expect(maria.bar("Сесть за стол")).to_have_count(0)
    shots(maria, artifacts, "entered-seated")
    assert yozh.page.url.endswith(f"/table/{table_id}?watch=1")
    expect(yozh.page.locator(".idle")).to_have_text("Вы смотрите игру")
    expect(yozh.page.locator(f'.seat[data-seat="{yozh.name}"]')).to_have_count(0)
    expect(yozh.bar("Сесть за стол")).to_have_count(1)
    shots(yozh, artifacts, "entered-watching")
    for p in (ivan, maria):
        expect(p.page.locator(".seat:not(.empty)")).to_have_count(2)
    yozh.sit()
    expect(ivan.page.locator(f'.seat[data-seat="{yozh.name}"]')).to_be_visible()
    for p in (ivan, maria, yozh):
        assert p.errors == [], p.errors


def test_entering_without_the_ante_says_how_much_is_missing(crowd: Crowd, artifacts: Path) -> None:
    """Вера has 4 ₽ at a table of ante 10: entering leaves her watching, and the bar says
    she lacks 6 ₽ of the 10 a seat needs; «Сесть за стол» says it again. In English and in
    Bulgarian the same words are the page's own. Seated with 10 ₽ that then go, she is
    stood up when the next gathering opens, and told why."""
    ivan, vera = crowd.add(DESKTOP, "Иван"), crowd.add(PHONE, "Вера")
    grant(crowd.server, vera.name, -996)
    table_id = ivan.new_table("Анте " + ivan.name, "classic", 3)
    note = vera.page.locator("#actions .note")
    vera.open_table(table_id, watch=False)
    expect(note).to_have_text("Не хватает денег: ещё 6 ₽ (нужно 10 ₽)")
    expect(vera.page.locator(f'.seat[data-seat="{vera.name}"]')).to_have_count(0)
    shots(vera, artifacts, "entered-no-money")
    vera.click("Сесть за стол")
    expect(vera.page.locator("#toast")).to_have_text("Не хватает денег: ещё 6 ₽ (нужно 10 ₽)")
    for label, words in (
        ("English", "Not enough money: 6 ₽ short (10 ₽ needed)"),
        ("Български", "Нямате достатъчно пари: липсват 6 ₽ (нужни са 10 ₽)"),
    ):
        choose_language(vera.page, vera.base, label)
        vera.open_table(table_id, watch=False)
        expect(note).to_have_text(words)
    shots(vera, artifacts, "entered-no-money-bg")
    grant(crowd.server, vera.name, 6)
    vera.page.click('#actions [data-table-do="sit"]')
    expect(note).to_have_count(0)
    expect(ivan.page.locator(f'.seat[data-seat="{vera.name}"]')).to_be_visible()
    # Her money goes while she sits: Иван's «Готов» opens the gathering and stands her up.
    choose_language(vera.page, vera.base, "Русский")
    vera.open_table(table_id)
    grant(crowd.server, vera.name, -10)
    ivan.click("Готов")
    expect(note).to_have_text("Вы встали из-за стола: не хватает денег на анте (10 ₽)")
    expect(ivan.page.locator(f'.seat[data-seat="{vera.name}"]')).to_have_count(0)
    shots(vera, artifacts, "stood-no-money")
    for p in (ivan, vera):
        assert p.errors == [], p.errors
