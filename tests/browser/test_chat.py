"""The table chat with its quick phrases (C-8.4): lines reach everyone at the table, and a
page opened later gets the recent ones."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE, Crowd, Player, Table
from .layout import problems
from .test_languages import choose_language

# The action bar's buttons whose centre is under something else (a panel, a drawer).
COVERED = """() => [...document.querySelectorAll("#actions .act")].filter((b) => {
  const r = b.getBoundingClientRect();
  return !b.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
}).map((b) => b.textContent)"""


# The top bar's shown buttons whose centre is under something else (a panel).
TOP_COVERED = """() => [...document.querySelectorAll(".topbar .icon-btn")]
  .filter((b) => b.offsetParent !== null).filter((b) => {
    const r = b.getBoundingClientRect();
    return !b.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
  }).map((b) => b.getAttribute("aria-label"))"""
# The share of the chat drawer's height that shows the lines said.
LINES_SHARE = """() => document.querySelector("#chat-list").clientHeight /
  document.querySelector("#chat-panel").clientHeight"""
BOXES = "(els) => els.map((e) => e.getBoundingClientRect().toJSON())"


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


def test_unread_badge_and_the_phones_drawer(crowd: Crowd, artifacts: Path) -> None:
    """While the chat is closed its button counts the lines said; on a phone the chat opens
    as a drawer above the action bar, most of it the lines said, at a laptop as a side panel
    ending above it: the bar's buttons stay usable."""
    ivan, maria = crowd.add(PHONE, "Иван"), crowd.add(DESKTOP, "Мария")
    table_id = ivan.new_table("Чат " + ivan.name, "classic", 4)
    for p in (ivan, maria):
        p.open_table(table_id)
        p.sit()
    badge = ivan.page.locator("#chat-badge")
    expect(badge).to_be_hidden()
    maria.page.click('[data-panel="chat-panel"]')
    for text in ("Привет, Ёж!", "Играем?"):
        maria.page.fill("#chat-input", text)
        maria.page.press("#chat-input", "Enter")
    expect(badge).to_have_text("2")
    ivan.page.click('[data-panel="chat-panel"]')
    expect(badge).to_be_hidden()
    expect(ivan.page.locator("#chat-list li").last).to_have_text(f"{maria.name}: Играем?")
    ivan.shot(artifacts, "chat-drawer")
    # The bar's buttons are not under the drawer: each one is what its centre hits.
    buttons = ivan.page.locator("#actions .act")
    expect(buttons.first).to_be_visible()
    assert ivan.page.evaluate(COVERED) == []
    # The lines said have most of the drawer: the quick phrases are one row scrolled
    # sideways, not four rows (what is past the screen's edge is scrolled to, and said).
    assert ivan.page.evaluate(LINES_SHARE) > 0.5
    rows = {round(b["y"]) for b in ivan.page.eval_on_selector_all(".phrase", BOXES)}
    assert len(rows) == 1, rows
    assert problems(ivan.page) == []
    ivan.page.locator(".phrase", has_text="Пока!").click()
    expect(ivan.page.locator("#chat-list li").last).to_have_text(f"{ivan.name}: Пока!")
    ivan.click("Готов")
    expect(ivan.page.locator(f'.seat[data-seat="{ivan.name}"] .mark.ready')).to_be_visible()
    maria.page.fill("#chat-input", "Вижу")
    maria.page.press("#chat-input", "Enter")
    expect(ivan.page.locator("#chat-list li").last).to_have_text(f"{maria.name}: Вижу")
    expect(badge).to_be_hidden()  # read as it came: the panel is open
    # At a laptop the chat is a side panel ending above the bar: on Мария's turn, her chat
    # open, every button of her bar (they run the bar's width) is hers to press.
    table = Table([ivan, maria], table_id)
    table.do("Готов", maria)
    for p in (ivan, maria):
        expect(p.page.locator(".my-cards .card")).to_have_count(3)
    if ivan.bar("Упал").count():  # he speaks first (C-4.4): a bet, and she answers it
        table.do("Дал 10", ivan)
    expect(maria.bar("Упал")).to_have_count(1)
    expect(maria.page.locator("#chat-panel")).to_be_visible()
    maria.shot(artifacts, "chat-panel-turn")
    assert maria.page.evaluate(COVERED) == []
    # Nor are the top bar's: her microphone and sound stay in reach with the chat open.
    assert maria.page.evaluate(TOP_COVERED) == []


def test_a_quick_phrase_is_said_in_each_listeners_language(crowd: Crowd) -> None:
    """C-8.4: «Удачи!» pressed on a Russian page reads «Good luck!» on an English one and
    «Успех!» on a Bulgarian one; each page's buttons are in its own language."""
    ivan, mary, stoyan = (crowd.add(DESKTOP, n) for n in ("Иван", "Mary", "Стоян"))
    choose_language(mary.page, crowd.server.url, "English")
    choose_language(stoyan.page, crowd.server.url, "Български")
    table_id = ivan.new_table("Фразы " + ivan.name, "classic", 4)
    for p in (ivan, mary, stoyan):
        p.open_table(table_id)
        p.page.click('[data-panel="chat-panel"]')
    expect(mary.page.locator(".phrase").nth(3)).to_have_text("Good luck!")
    ivan.page.click(".phrase >> text=Удачи!")
    for p, words in ((ivan, "Удачи!"), (mary, "Good luck!"), (stoyan, "Успех!")):
        expect(p.page.locator("#chat-list li").last).to_have_text(f"{ivan.name}: {words}")
    mary.page.reload()  # the recent lines too
    expect(mary.page.locator("#chat-list li").last).to_have_text(f"{ivan.name}: Good luck!")
