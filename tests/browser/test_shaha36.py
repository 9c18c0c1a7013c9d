"""The shaha36 table in Chromium (docs/rules/shaha36.md): stacks, cards turned by tapping (S-1.3), a
pot-limit bet from the amount panel (S-3.2), the dark circle (S-4), show or muck (S-6.2)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from .conftest import Player, Table

NEW_HAND = "Новая раздача"  # S-1.6: the shaha36 gathering button


def play_out(table: Table, limit: int = 40) -> None:
    """Finish the hand: whoever is to act turns his cards first, then calls or checks;
    a weaker hand at the showdown is shown (S-6.2, within its 3 s)."""
    for _ in range(limit):
        if table.who_can(NEW_HAND):
            return
        for p in table.players:
            if p.labels() and p.page.locator(".my-cards .card.tap").count():
                table.tap_card(p)
                break
        else:
            who, label = table.first_of(
                ["Показать", "Уравнять", "Пропустить", "Делить", "Не вариться", "Повысить"]
            )
            table.do(label, who)
    raise AssertionError("the hand did not end")


def test_shaha36_tap_to_look_bet_dark_and_showdown(people: list[Player], artifacts: Path) -> None:
    anna, boris, vera = people
    table = Table(people, anna.new_table("Шаха " + anna.name, "shaha36", 6))
    # S-1.5: the stack, 20 to 100 antes, comes from the balance of 1000: anna takes 500.
    anna.page.goto(f"{anna.base}/table/{table.id}")  # entering asks for the stack (C-1.2)
    expect(anna.page.locator("#buy-in")).to_be_visible()
    expect(anna.page.locator("#buy-in .amount-input")).to_have_attribute("max", "1000")
    anna.page.click('#buy-in button[data-buy-in="cancel"]')
    expect(anna.page.locator(f'.seat[data-seat="{anna.name}"]')).to_have_count(0)
    table.seat_everyone(stacks={anna.name: 500})
    for p in people:
        stack = "500 ₽" if p is anna else "200 ₽"
        expect(anna.page.locator(f'.seat[data-seat="{p.name}"] .balance')).to_have_text(stack)
    table.start(NEW_HAND)

    # S-1.7's Decision: the table chat sends only between hands; the refusal is said in
    # the player's words.
    anna.page.click('[data-panel="chat-panel"]')
    anna.page.fill("#chat-input", "Привет")
    anna.page.press("#chat-input", "Enter")
    expect(anna.page.locator("#toast")).to_have_text("Сейчас этого сделать нельзя")
    expect(anna.page.locator("#chat-list li")).to_have_count(0)
    anna.page.click("#chat-panel [data-close]")

    # Hand 1: everyone's cards start face down; a tap turns one card, and the others see
    # «смотрит» on that seat (S-1.3 and its Decision).
    for p in people:
        expect(p.page.locator(".my-cards .card.down")).to_have_count(3)
    table.tap_card(vera)
    expect(vera.page.locator(".my-cards .card.up")).to_have_count(1)
    expect(anna.page.locator(f'.seat[data-seat="{vera.name}"] .mark.looked')).to_have_text(
        "смотрит"
    )
    table.tap_card(vera)
    table.tap_card(vera)
    expect(vera.page.locator(".my-cards .card.up")).to_have_count(3)
    # A bet is a range (S-3.2: from the ante to the pot): ×2 of the minimum, then «Поставить».
    first = next(p for p in people if p.labels())
    assert "Поставить" in first.labels() and "Скинуть" in first.labels()
    panel = first.page.locator("#actions .amount")
    low = int(panel.get_attribute("data-min") or 0)
    high = int(panel.get_attribute("data-max") or 0)
    assert (low, high) == (10, 30)  # the ante; the pot of three antes
    first.page.click("#actions .amount .mult >> text=×2")
    expect(first.page.locator("#actions .amount-input")).to_have_value("20")
    first.shot(artifacts, "shaha36-bet")
    before = table.version()
    first.page.click('#actions .amount .act[data-do="bet"]')
    table.sync(before)
    expect(first.page.locator(".last3 li").last).to_have_text(f"{first.name}: Поставить 20")
    for p in (anna, boris):
        p.shot(artifacts, "shaha36-table")
    play_out(table)
    table.over(NEW_HAND)
    # Everyone called and showed: all three hands stay face up with their points (S-6.2).
    expect(anna.page.locator(".mark.points")).to_have_count(3)
    expect(anna.page.locator(".seat-cards .card.up")).to_have_count(6)
    boris.shot(artifacts, "shaha36-showdown")

    # Hand 2: the first player after the dealer starts the dark without looking (S-4.1).
    table.start(NEW_HAND)
    dark, label = table.first_of(["Втёмную"])
    table.do(label, dark)
    expect(anna.page.locator(f'.seat[data-seat="{dark.name}"] .mark.dark')).to_be_visible()
    play_out(table)
    table.over(NEW_HAND)
    for p in people:
        assert p.errors == [], p.errors
