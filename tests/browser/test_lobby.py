"""The lobby as a player meets it: his balance, the games by their names, «Открыть стол»
opening the new table, and a practice button that says which game it plays."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from .conftest import PHONE, Crowd, Player


def test_the_lobby_names_games_and_shows_the_balance(crowd: Crowd, artifacts: Path) -> None:
    ivan: Player = crowd.add(PHONE, "Иван")
    page = ivan.page
    page.goto(ivan.base + "/")
    expect(page.locator("#balance")).to_contain_text("1 000 ₽")
    # The form lists the variants under their games' names.
    options = page.locator("#new-table select[name=variant] option").all_inner_texts()
    assert {"Классика", "Шаха", "Свара 32"} <= set(options), options
    assert {"Свара 32, практика", "Свара 32 по-старому"} <= set(options), options
    assert not [o for o in options if "svara32" in o], options
    expect(page.locator("#practice button")).to_have_text("Играть с Гэри · Свара 32")
    # «Открыть стол» opens the new table.
    name = "Пятница " + ivan.name
    page.fill("#new-table input[name=name]", name)
    page.select_option("#new-table select[name=variant]", "shaha36")
    page.click("#new-table button[type=submit]")
    page.wait_for_url(re.compile(r"/table/\d+$"))
    expect(page.locator("#table-name")).to_have_text(name)
    page.goto(ivan.base + "/")
    row = page.locator(".table-row", has=page.locator("a", has_text=name))
    expect(row.locator(".table-variant")).to_have_text("Шаха")
    ivan.shot(artifacts, "lobby-balance")
    # A table opened while the lobby is open comes in live, under its game's name too.
    maria = crowd.add(PHONE, "Мария")
    other = "Свара " + maria.name
    maria.new_table(other, "svara32", 2)
    live = page.locator(".table-row", has=page.locator("a", has_text=other))
    expect(live.locator(".table-variant")).to_have_text("Свара 32")
    assert ivan.errors == []
