"""The svara32 table in Chromium (docs/rules/svara32.md, B-1.4): two players at a two-seat table,
«РЕЙЗ» from the amount panel with ×2 and МАКС (B-3.3), «КОЛЛ» ending the betting heads-up
(B-3.2), «Тёмный» before the deal (B-4.1) and the dark hand seen by tapping a card (B-4.3); a
third person only watches and never sees a card before the showdown."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from .conftest import Player, Table


def play_out(table: Table, limit: int = 30) -> None:
    """Call until the hand is over; a Svara is entered (B-5.2)."""
    table.play_until("Готов", ["КОЛЛ", "Войти в свару", "ЧЕК"], limit)


def test_svara32_look_raise_call_dark_and_a_spectator(
    people: list[Player], artifacts: Path
) -> None:
    anna, boris, vera = people
    table_id = anna.new_table("Свара 32 " + anna.name, "svara32", 2)
    table = Table([anna, boris], table_id)
    table.seat_everyone()
    vera.open_table(table_id)  # the table is full: she watches, then queues (C-1.2)
    vera.sit()
    for p in people:
        expect(p.page.locator(".queue")).to_contain_text("В очереди: 1")
    expect(vera.page.locator(".queue")).to_have_text("В очереди: 1 · вы 1-й")
    expect(vera.bar("Сесть за стол")).to_have_count(0)
    table.start()
    expect(vera.page.locator(".my-cards")).to_have_count(0)
    expect(vera.page.locator(".card.up")).to_have_count(0)

    # Hand 1: sighted play; the first player raises from the amount panel (B-3.3).
    first = next(p for p in table.players if p.labels())
    second = boris if first is anna else anna
    assert set(first.labels()) == {"ПАС", "КОЛЛ", "РЕЙЗ"}
    for p in table.players:
        expect(p.page.locator(".my-cards .card.up")).to_have_count(3)
    panel = first.page.locator("#actions .amount")
    low = int(panel.get_attribute("data-min") or 0)
    high = int(panel.get_attribute("data-max") or 0)
    assert (low, high) == (10, 190)  # one stake above the antes; what the other can pay
    first.page.click("#actions .amount .mult >> text=×2")
    expect(first.page.locator("#actions .amount-input")).to_have_value("20")
    first.page.click("#actions .amount .mult >> text=МАКС")
    expect(first.page.locator("#actions .amount-input")).to_have_value("190")
    first.page.fill("#actions .amount-input", "30")
    first.shot(artifacts, "svara32-raise")
    table.do("РЕЙЗ", first)
    expect(vera.page.locator(".pot b")).to_have_text("50 ₽")
    for p in (anna, boris):
        p.shot(artifacts, "svara32-table")
    assert set(second.labels()) == {"ПАС", "КОЛЛ", "РЕЙЗ"}
    expect(second.bar("КОЛЛ").locator(".price")).to_have_text(" · 30 ₽")
    second.shot(artifacts, "svara32-call")
    table.do("КОЛЛ", second)
    play_out(table)
    table.over()
    # After the call the hands are compared in the open: the spectator sees both (B-3.2).
    expect(vera.page.locator(".seat-cards .card.up")).to_have_count(6)
    vera.shot(artifacts, "svara32-spectator")

    # Hand 2: the player after the dealer may play «Тёмный» before the deal (B-4.1).
    dark = next(p for p in table.players if p.bar("Тёмный").count())
    table.start(dark=dark, dark_label="Тёмный")
    expect(vera.page.locator(f'.seat[data-seat="{dark.name}"] .mark.dark')).to_be_visible()
    expect(dark.page.locator(".my-cards .card.up")).to_have_count(0)
    other = boris if dark is anna else anna
    expect(other.page.locator(".my-cards .card.up")).to_have_count(3)
    # The sighted player raises over the dark bet (a call would end it, B-3.2); the dark
    # player sees his hand by tapping a card instead of «Смотреть», and keeps the turn (B-4.3).
    table.do("РЕЙЗ", other)
    assert set(dark.labels()) == {"ПАС", "КОЛЛ", "РЕЙЗ", "Смотреть"}
    table.tap_card(dark)
    expect(dark.page.locator(".my-cards .card.up")).to_have_count(3)
    assert set(dark.labels()) == {"ПАС", "КОЛЛ", "РЕЙЗ"}
    play_out(table)
    table.over()
    # Vera waited in the queue all along; she leaves it (C-1.2).
    before = table.version()
    vera.click("Выйти из очереди")
    table.sync(before)
    for p in people:
        expect(p.page.locator(".queue")).to_have_count(0)
    expect(vera.bar("Сесть за стол")).to_have_count(1)
    for p in people:
        assert p.errors == [], p.errors
