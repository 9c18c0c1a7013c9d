"""The table chat with its quick phrases (C-8.4): lines reach everyone at the table, and a
page opened later gets the recent ones."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import Player


def test_table_chat_and_quick_phrases(people: list[Player]) -> None:
    anna, boris, vera = people
    table_id = anna.new_table("Чат " + anna.name, "classic", 4)
    for p in people:
        p.open_table(table_id)
    anna.page.click('[data-panel="chat-panel"]')
    anna.page.fill("#chat-input", "Всем привет")
    anna.page.press("#chat-input", "Enter")
    for p in (boris, vera):
        expect(p.page.locator("#chat-list li").last).to_have_text(f"{anna.name}: Всем привет")
    boris.page.click('[data-panel="chat-panel"]')
    boris.page.click(".phrase >> text=Удачи!")
    for p in people:
        expect(p.page.locator("#chat-list li").last).to_have_text(f"{boris.name}: Удачи!")
    # A page opened later gets the recent lines.
    vera.page.reload()
    expect(vera.page.locator("#chat-list li")).to_have_count(2)
