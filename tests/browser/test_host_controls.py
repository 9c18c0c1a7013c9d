"""The host's table menu in Chromium (docs/hosting.md, «The host's table menu»): Иван opens a
table, Мария and Ёж sit at it; Иван's menu pauses and resumes, locks the seats, changes the
ante between hands, mutes Мария (she asks to speak, he unmutes her) and stands Ёж up — and
the other pages see each of these, named with who did it, in their own words, again after
a reload, and in English at once when Мария's page switches to it. Мария's page has no
menu. Screenshots of each new state at 360×740, 390×844 and 1280×800."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from .conftest import DESKTOP, Crowd, Player

PHONE_390 = {"width": 390, "height": 844}
SIZES = ({"width": 360, "height": 740}, PHONE_390, DESKTOP)


def shots(player: Player, folder: Path, name: str) -> None:
    """`name` at both sizes, the page back at its own size after."""
    own = player.page.viewport_size
    for size in SIZES:
        player.page.set_viewport_size(size)
        player.shot(folder, f"host-{name}")
    if own:
        player.page.set_viewport_size(own)


def menu(page: Page, label: str, row: str | None = None) -> None:
    """Click `label` in the host's menu (in the row of player `row`), opening it first."""
    panel = page.locator("#host-panel")
    if panel.is_hidden():
        page.locator("#host-menu").click()
    expect(panel).to_be_visible()
    scope = panel.locator(".host-players li", has_text=row) if row else panel
    scope.locator("button", has_text=label).first.click()


def close_panels(page: Page) -> None:
    panel = page.locator(".panel:not([hidden])")
    if panel.count():
        panel.locator("[data-close]").click()


def test_the_hosts_menu_seen_by_the_other_players(crowd: Crowd, artifacts: Path) -> None:
    ivan = crowd.add(DESKTOP, "Иван")
    maria = crowd.add(DESKTOP, "Мария")
    yozh = crowd.add(DESKTOP, "Ёж")
    table = ivan.new_table("Пятница", "classic", 4)
    for p in (maria, yozh):
        p.open_table(table, watch=False)
        expect(p.page.locator(f'.seat[data-seat="{p.name}"]')).to_be_visible()
    expect(ivan.page.locator(f'.seat[data-seat="{yozh.name}"]')).to_be_visible()
    expect(maria.page.locator("#host-menu")).to_have_count(0)  # not hers: no menu at all
    ivan.page.locator("#host-menu").click()
    expect(ivan.page.locator("#host-panel")).to_be_visible()
    shots(ivan, artifacts, "menu")

    # Pause (between hands: at once), and Мария reads it, with who paused.
    menu(ivan.page, "Пауза после раздачи")
    status = maria.page.locator("#host-status")
    expect(status).to_have_text("Пауза")
    expect(maria.page.locator("#chat-list .host-line").last).to_have_text(
        f"{ivan.name} ставит игру на паузу после раздачи"
    )
    expect(maria.bar("Готов")).to_have_count(0)  # no gathering while paused
    shots(maria, artifacts, "paused")
    menu(ivan.page, "Продолжить игру")
    expect(status).to_be_hidden()
    expect(maria.bar("Готов")).to_have_count(1)

    # Lock the seats.
    menu(ivan.page, "Закрыть места")
    expect(status).to_have_text("Места закрыты")
    expect(maria.page.locator("#chat-list .host-line").last).to_have_text(
        f"{ivan.name} закрывает места за столом"
    )
    shots(maria, artifacts, "locked")
    menu(ivan.page, "Открыть места")
    expect(status).to_be_hidden()

    # The ante between hands: the next hand's, in Мария's words.
    form = ivan.page.locator("#host-panel .host-rules")
    form.locator("input[name=ante]").fill("20")
    form.locator("button[type=submit]").click()
    expect(maria.page.locator("#chat-list .host-line").last).to_have_text(
        f"{ivan.name} меняет правила: анте 20 ₽"
    )
    expect(maria.page.locator("#history-panel #host-log")).to_contain_text("анте 20 ₽")
    expect(ivan.page.locator("#host-panel input[name=ante]")).to_have_value("20")
    maria.page.locator('[data-panel="history-panel"]').click()
    shots(maria, artifacts, "rules-log")
    close_panels(maria.page)

    # Mute Мария's microphone: she is told, asks to speak; Иван sees it and unmutes her.
    menu(ivan.page, "Выключить микрофон", row=maria.name)
    expect(status).to_contain_text("Ведущий выключает вам микрофон за этим столом.")
    shots(maria, artifacts, "muted")
    status.locator("button", has_text="Попросить слова").click()
    expect(status).to_contain_text("Вы попросили слова")
    asking = ivan.page.locator("#host-panel .host-players li", has_text=maria.name)
    expect(asking).to_contain_text("Просит слова")
    expect(ivan.page.locator("#host-badge")).to_have_text("1")
    shots(ivan, artifacts, "asking")
    menu(ivan.page, "Включить микрофон", row=maria.name)
    expect(status).to_be_hidden()
    expect(maria.page.locator("#chat-list .host-line").last).to_have_text(
        f"{ivan.name} включает микрофон: {maria.name}"
    )

    # Stand Ёж up: he reads who did it, with «Сесть за стол»; Мария sees his seat go.
    menu(ivan.page, "Поднять", row=yozh.name)
    expect(yozh.page.locator("#actions .note")).to_contain_text(
        f"{ivan.name}, хозяин стола, поднимает вас из-за стола"
    )
    expect(yozh.bar("Сесть за стол")).to_have_count(1)
    expect(maria.page.locator(f'.seat[data-seat="{yozh.name}"]')).to_have_count(0)
    expect(maria.page.locator("#chat-list .host-line").last).to_have_text(
        f"{ivan.name} поднимает из-за стола: {yozh.name}"
    )
    shots(yozh, artifacts, "stood")

    # Мария reloads her page: the host lines come back where they were said, in her words.
    maria.page.reload()
    lines = maria.page.locator("#chat-list .host-line")
    expect(lines).to_have_text(
        [
            f"{ivan.name} ставит игру на паузу после раздачи",
            f"{ivan.name} продолжает игру",
            f"{ivan.name} закрывает места за столом",
            f"{ivan.name} открывает места за столом",
            f"{ivan.name} меняет правила: анте 20 ₽",
            f"{ivan.name} выключает микрофон: {maria.name}",
            f"{maria.name} просит слова",
            f"{ivan.name} включает микрофон: {maria.name}",
            f"{ivan.name} поднимает из-за стола: {yozh.name}",
        ]
    )
    expect(maria.page.locator("#history-panel #host-log li")).to_have_count(9)

    # She says a phrase, then switches her page to English at the table: the lines already
    # written (the host's, her phrase) are read again in English, without a reload; what
    # the host's strip says («Места закрыты») too.
    menu(ivan.page, "Закрыть места")
    expect(status).to_have_text("Места закрыты")
    maria.page.click('[data-panel="chat-panel"]')
    maria.page.locator("#chat-panel .phrase", has_text="Привет всем!").click()
    said = maria.page.locator("#chat-list li", has_text=maria.name).last
    expect(said).to_have_text(f"{maria.name}: Привет всем!")
    maria.page.click("#chat-panel [data-close]")
    maria.page.click('[data-panel="settings-panel"]')
    maria.page.locator("#settings-panel").get_by_label("English").check()
    maria.page.click("#settings-panel [data-close]")
    expect(said).to_have_text(f"{maria.name}: Hi all!")
    expect(status).to_have_text("Seats locked")
    english = [
        f"{ivan.name} pauses the game after this hand",
        f"{ivan.name} resumes the game",
        f"{ivan.name} locked the seats",
        f"{ivan.name} unlocked the seats",
        f"{ivan.name} changed the rules: ante 20 ₽",
        f"{ivan.name} muted {maria.name}",
        f"{maria.name} asks to speak",
        f"{ivan.name} unmuted {maria.name}",
        f"{ivan.name} stood {yozh.name} up",
        f"{ivan.name} locked the seats",
    ]
    expect(lines).to_have_text(english)
    expect(maria.page.locator("#history-panel #host-log li")).to_have_text(english)
    for p in (ivan, maria, yozh):
        assert p.errors == [], p.errors
