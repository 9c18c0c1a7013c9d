"""Tabs of one browser (C-8.2, docs/rules.md «Live tables»): the lobby in another tab is not a
second device, the same table in another tab is, and «Играть здесь» takes the table back;
the buy-in dialog counts down to the next deal (S-1.5, S-1.6)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.server.tablekit import SLOW, new_table

from .conftest import DESKTOP, PHONE, Crowd, Player, Table
from .test_classic import FINISH
from .test_felt import SIZES

TAKEN = "Стол открыт в другой вкладке или на другом устройстве"
PLAY_HERE = "Играть здесь"


def live(page: Page) -> None:
    """The page is connected and its buttons work: no banner, no «offline»."""
    expect(page.locator("[data-net]")).to_be_hidden()
    expect(page.locator("body")).not_to_have_class(re.compile(r"\boffline\b"))


def shots(page: Page, artifacts: Path, name: str) -> None:
    """The page as it is now at each of the three sizes."""
    for size in SIZES:
        page.set_viewport_size(size)
        page.screenshot(
            path=str(artifacts / f"{name}-{size['width']}x{size['height']}.png"),
            animations="disabled",
        )


def started(crowd: Crowd) -> tuple[Table, Player, Player]:
    """«Иван» (phone) and «Мария» (desktop) at a classic table of two, a hand in play."""
    ivan, maria = crowd.add(PHONE, "Иван"), crowd.add(DESKTOP, "Мария")
    table = Table([ivan, maria], new_table(crowd.server, "classic", 2, turn_seconds=SLOW))
    table.seat_everyone()
    table.start()
    return table, ivan, maria


def test_the_lobby_in_another_tab_leaves_the_table_playable(crowd: Crowd) -> None:
    """C-8.2: opening the lobby (and the rules) in another tab of the same browser takes
    nothing over: the table's tab stays connected and its buttons play the hand."""
    table, ivan, maria = started(crowd)
    lobby = ivan.context.new_page()
    lobby.goto(ivan.base + "/")
    expect(lobby.locator(f'#table-rows [data-table-id="{table.id}"]')).to_be_visible()
    rules = ivan.context.new_page()
    rules.goto(ivan.base + "/rules/classic")
    ivan.page.bring_to_front()
    live(ivan.page)
    # Whoever is to act acts, from the table's tab, until the hand is over.
    table.play_until("Готов", FINISH)
    live(ivan.page)
    expect(lobby.locator("#connection-status")).to_have_text("")
    assert not ivan.errors and not maria.errors, (ivan.errors, maria.errors)


def test_the_table_in_a_second_tab_takes_over_and_play_here_takes_it_back(
    crowd: Crowd, artifacts: Path
) -> None:
    """C-8.2: the same table opened in a second tab takes it over; the first says so in
    true words and offers «Играть здесь», which takes the table back (and the second tab
    then says the same)."""
    table, ivan, maria = started(crowd)
    first = ivan.page
    second = ivan.context.new_page()
    second.goto(f"{ivan.base}/table/{table.id}")
    expect(second.locator(".my-cards .card")).to_have_count(3)
    net = first.locator("[data-net]")
    expect(net).to_contain_text(TAKEN)
    expect(net.locator("button.net-again")).to_have_text(PLAY_HERE)
    expect(first.locator("body")).to_have_class(re.compile(r"\boffline\b"))
    live(second)
    shots(first, artifacts, "tabs-taken-over")
    first.set_viewport_size(PHONE)

    # «Играть здесь»: the first tab is the table's again; the second is told the same.
    net.locator("button.net-again").click()
    live(first)
    expect(first.locator(".my-cards .card")).to_have_count(3)
    expect(second.locator("[data-net]")).to_contain_text(TAKEN)
    expect(second.locator("[data-net] button.net-again")).to_have_text(PLAY_HERE)
    # And the first tab plays the hand to its end.
    table.play_until("Готов", FINISH)
    live(first)
    assert not ivan.errors and not maria.errors, (ivan.errors, maria.errors)


def test_the_buy_in_dialog_counts_down_to_the_deal(crowd: Crowd, artifacts: Path) -> None:
    """S-1.5, S-1.6: at a table of stacks whose gathering runs, the buy-in dialog shows how
    long until the deal, as the other dialogs show their countdown; nothing is timed
    before the gathering opens."""
    ivan, maria, yozh = (
        crowd.add(PHONE, "Иван"),
        crowd.add(DESKTOP, "Мария"),
        crowd.add(PHONE, "Ёж"),
    )
    table_id = new_table(crowd.server, "shaha36", 3, new_hand_seconds=SLOW)
    table = Table([ivan, maria], table_id)
    yozh.open_table(table_id)
    yozh.click("Сесть за стол")
    dialog = yozh.page.locator("#buy-in")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".dialog-timer")).to_have_count(0)  # no gathering yet
    yozh.page.click('#buy-in button[data-buy-in="cancel"]')
    table.seat_everyone()
    table.do("Новая раздача", ivan)  # S-1.6: the gathering opens, Мария has not answered
    yozh.click("Сесть за стол")
    timer = dialog.locator(".dialog-timer")
    expect(timer).to_have_text(re.compile(r"^До раздачи \d+ с$"))
    left = int(re.findall(r"\d+", timer.inner_text())[0])
    assert 0 < left <= SLOW, left
    # It ticks down like the other dialogs' countdowns.
    yozh.page.wait_for_function(
        "n => Number(document.querySelector('#buy-in .dialog-timer .secs').textContent) < n",
        arg=left,
    )
    shots(yozh.page, artifacts, "buy-in-countdown")
    yozh.page.set_viewport_size(PHONE)
    yozh.page.click('#buy-in button[data-buy-in="sit"]')
    expect(dialog).to_be_hidden()
    expect(yozh.page.locator(f'.seat[data-seat="{yozh.name}"]')).to_be_visible()
    assert not yozh.errors, yozh.errors
