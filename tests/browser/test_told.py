"""Told, not guessed, in Chromium against a real `svara serve` (docs/protocol.md `you.stood`,
`account:balance`):

- «Иван» lets his turn timer run out (C-1.7's Decision): when the hand ends his page says why
  he no longer sits, in Russian, beside «Сесть за стол», after a reload too, until he closes
  it or sits again — which the button does; «Мария», who played, reads nothing of his;
- «Мария», short of a stack (S-1.5), is refused a seat; the host's grants on «Вечер» (/admin)
  reach her open table page without a reload: the note says the shortfall as it is now, then
  goes, and the buy-in shows her new balance; money put into the ledger with no server told
  (as `svara admin balance grant` does when it sees none) shows when her page comes back in
  front.

Screenshots at 390×844 and 1280×800 go to test-artifacts/browser/.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from tests.server.conftest import Server
from tests.server.tablekit import FAST, admin, grant, new_table

from .conftest import DESKTOP, PHONE, Crowd, Player, Table

SHOT_SIZES = ({"width": 390, "height": 844}, DESKTOP)
TIMED_OUT = "Вы встали из-за стола: ваше время на ход вышло, и после раздачи место освободилось"
# Мария plays on: a bet rather than a fold, so only Иван's own timer stands him up.
PLAY_ON = [
    "Дал 10", "Дал 30", "Дал дальше", "Вскрыться", "Смотреться", "Не входить",
    "Играть без темняшки", "Забился",
]  # fmt: skip


def shots(player: Player, artifacts: Path, name: str) -> None:
    """The page as it is now at 390×844 and 1280×800 (it keeps its state)."""
    before = player.page.viewport_size
    for size in SHOT_SIZES:
        player.page.set_viewport_size(size)
        player.shot(artifacts, name)
    if before:
        player.page.set_viewport_size(before)


def test_a_timed_out_player_reads_why_and_sits_again(crowd: Crowd, artifacts: Path) -> None:
    ivan, maria = crowd.add(PHONE, "Иван"), crowd.add(DESKTOP, "Мария")
    table = Table([ivan, maria], new_table(crowd.server, "classic", 2, turn_seconds=FAST))
    table.seat_everyone()
    table.start()
    gone = 'name => !document.querySelector(`.seat[data-seat="${name}"]`)'
    turn = "name => document.querySelector('#actions .act:not(.between)') || " + gone[8:]
    for _ in range(12):  # Мария decides on each of her turns; Иван's run out
        maria.page.wait_for_function(turn, arg=ivan.name, timeout=30_000)
        if maria.page.evaluate(gone, ivan.name):
            break
        offered = [label for label in PLAY_ON if maria.bar(label).count() == 1]
        if offered:
            before = table.version()
            maria.click(offered[0])
            maria.page.wait_for_function(
                "v => Number(document.body.dataset.version ?? -1) > v", arg=before
            )
    else:
        raise AssertionError(f"Иван was never stood up: {maria.labels()}")
    note = ivan.page.locator("#actions .note")
    expect(note).to_have_text(TIMED_OUT)
    sit = ivan.bar("Сесть за стол")
    expect(sit).to_have_count(1)
    expect(ivan.page.locator(f'.seat[data-seat="{ivan.name}"]')).to_have_count(0)
    expect(maria.page.locator("#actions .note")).to_have_count(0)  # not hers
    shots(ivan, artifacts, "told-timeout")
    # A reload is told again (the server keeps it); closed, it stays closed in this tab.
    ivan.open_table(table.id)
    expect(note).to_have_text(TIMED_OUT)
    note.locator("button.note-close").click()
    expect(note).to_have_count(0)
    ivan.open_table(table.id)
    expect(ivan.bar("Сесть за стол")).to_have_count(1)
    expect(note).to_have_count(0)
    ivan.click("Сесть за стол")
    expect(ivan.page.locator(f'.seat[data-seat="{ivan.name}"]')).to_be_visible()
    expect(maria.page.locator(f'.seat[data-seat="{ivan.name}"]')).to_be_visible()
    expect(note).to_have_count(0)
    shots(ivan, artifacts, "told-sat-again")
    for p in (ivan, maria):
        assert p.errors == [], (p.name, p.errors)


def give(host: Player, name: str, amount: int, reason: str) -> None:
    """«Дать» on the host's page «Вечер» (/admin)."""
    page = host.page
    page.goto(host.base + "/admin")
    row = page.locator(f'tr.account[data-account="{name}"]')
    row.locator("input[name=amount]").fill(str(amount))
    row.locator("input[name=reason]").fill(reason)
    row.get_by_role("button", name="Дать").click()
    expect(page.locator("#accounts .admin-said.ok")).to_contain_text(f"+{amount} ₽")


def test_a_grant_reaches_the_open_table_page_without_a_reload(
    web: Server, crowd: Crowd, artifacts: Path
) -> None:
    host, maria = crowd.add(DESKTOP, "Иван"), crowd.add(PHONE, "Мария")
    admin(web, "user", "admin", host.name, "--grant")
    grant(web, maria.name, -950)  # 50 ₽: a shaha36 stack needs 20 antes, 200 ₽ (S-1.5)
    table_id = new_table(web, "shaha36", 4)
    page = maria.page
    page.goto(f"{web.url}/table/{table_id}")
    # Entering with less than the smallest stack: told what is missing, offered no buy-in
    # he cannot pay (tests/browser/test_buy_in_short.py).
    buy_in = page.locator("#buy-in")
    note = page.locator("#actions .note")
    expect(note).to_have_text("Не хватает денег: ещё 150 ₽ (нужно 200 ₽)")
    expect(buy_in).to_be_hidden()
    shots(maria, artifacts, "told-short")
    # Not enough yet: the note says what is missing now, and no buy-in is offered.
    give(host, maria.name, 100, "на вечер")
    expect(note).to_have_text("Не хватает денег: ещё 50 ₽ (нужно 200 ₽)")
    expect(buy_in).to_be_hidden()
    # Enough: the note goes and the buy-in shows the balance as it is now.
    give(host, maria.name, 500, "на вечер")
    expect(note).to_have_count(0)
    expect(buy_in).to_be_visible()
    expect(buy_in.locator(".buy-in-balance")).to_have_text("На счёте: 650 ₽")
    shots(maria, artifacts, "told-granted")
    buy_in.locator('button[data-buy-in="sit"]').click()
    expect(page.locator(f'.seat[data-seat="{maria.name}"]')).to_be_visible()
    # The lobby in another tab; money no running server was told of shows when it is back
    # in front.
    lobby = maria.context.new_page()
    lobby.goto(web.url + "/")
    shown = lobby.locator("#balance b")
    expect(shown).to_have_text(re.compile(r"^450\s₽$"))
    grant(web, maria.name, 1000)
    lobby.evaluate("() => window.dispatchEvent(new Event('focus'))")
    expect(shown).to_have_text(re.compile(r"^1\s450\s₽$"))
    for p in (host, maria):
        assert p.errors == [], (p.name, p.errors)
