"""The pages around the table in Chromium: the installable app (manifest, icons, service
worker, Chromium's own installability check), the offline shell and «нет соединения», the
install page per browser (C §9), the rules, and the settings at the table (C-3.9
auto-count, four-colour deck, English)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, expect

from app.engine.cards import parse_card
from app.engine.games import SCORERS
from tests.server.conftest import Server

from .conftest import CHROMIUM, CHROMIUM_ARGS, PASSWORD, PHONE, Player, Table

ANDROID_CHROME = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0 Mobile Safari/537.36"
)
IPHONE_SAFARI = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)
TELEGRAM_ANDROID = ANDROID_CHROME + " Telegram-Android/11.2.3 (Google Pixel 8; Android 14)"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_manifest_icons_worker_and_installable(
    web: Server, driver: Playwright, tmp_path: Path
) -> None:
    # A persistent profile: Chromium never offers to install from an incognito one.
    context = driver.chromium.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport=PHONE,
    )
    page = context.new_page()
    page.goto(web.url + "/install")
    manifest = page.request.get(web.url + "/manifest.webmanifest")
    assert manifest.ok
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    data = manifest.json()
    assert data["display"] == "standalone" and data["name"] == "Свара"
    for icon in data["icons"]:
        body = page.request.get(web.url + icon["src"]).body()
        if icon["type"] == "image/png":
            width, height = png_size(body)
            assert f"{width}x{height}" == icon["sizes"]
    # The worker registers at the root scope, takes control and stores the shell.
    scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
    assert scope == web.url + "/"
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    cached = page.evaluate(
        "caches.keys().then(ks => Promise.all(ks.map(k => caches.open(k).then(c => c.keys()))))"
        ".then(lists => lists.flat().map(r => new URL(r.url).pathname))"
    )
    for path in ("/static/js/table.js", "/static/css/table.css", "/offline"):
        assert path in cached
    # Chromium's own verdict (what the install prompt uses).
    cdp = page.context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert errors == []
    assert cdp.send("Page.getAppManifest")["errors"] == []
    context.close()


def test_offline_shell_and_reconnect(web: Server, people: list[Player]) -> None:
    """Without a network the shell still opens; the table says «нет соединения» and comes
    back by itself, with what changed meanwhile."""
    anna, boris, _ = people
    table_id = anna.new_table("Связь " + anna.name, "classic", 4)
    anna.open_table(table_id)
    anna.page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    net = anna.page.locator("[data-net]")
    expect(net).to_be_hidden()
    anna.context.set_offline(True)
    expect(net).to_be_visible()
    expect(net).to_contain_text("нет соединения")
    expect(anna.page.locator("body")).to_have_class(re.compile(r"\boffline\b"))
    # Meanwhile someone sits down.
    boris.open_table(table_id)
    boris.click("Сесть за стол")
    anna.context.set_offline(False)
    expect(net).to_be_hidden()
    expect(anna.page.locator(f'.seat[data-seat="{boris.name}"]')).to_be_visible()
    # A page seen before opens from the cache offline; one never seen shows the offline page.
    anna.page.goto(web.url + "/rules/classic")
    anna.context.set_offline(True)
    anna.page.reload()
    expect(anna.page.locator("article.rules h1")).to_have_text("Полные правила Свары")
    anna.page.goto(web.url + "/rules/svara32?lang=en")
    expect(anna.page.locator(".net")).to_have_text("нет соединения")
    anna.context.set_offline(False)


@pytest.mark.parametrize(
    ("agent", "browser"),
    [(ANDROID_CHROME, "android"), (IPHONE_SAFARI, "iphone"), (TELEGRAM_ANDROID, "telegram")],
)
def test_install_page_for_each_browser(
    web: Server, chromium: Browser, artifacts: Path, agent: str, browser: str
) -> None:
    """C §9: Chrome's «Добавить на главный экран», Safari's «На экран “Домой”», and
    inside Telegram first «Открыть в браузере»."""
    context = chromium.new_context(viewport=PHONE, user_agent=agent, is_mobile=True)
    page = context.new_page()
    page.goto(web.url + "/install")
    expect(page.locator(".step-card.current")).to_have_count(1)
    expect(page.locator(".step-card.current")).to_have_attribute("data-for", browser)
    telegram = page.locator(".telegram-first")
    if browser == "telegram":
        expect(telegram).to_be_visible()
        expect(telegram).to_contain_text("«Открыть в браузере»")
    else:
        expect(telegram).to_be_hidden()
    expect(page.locator('[data-for="android"]')).to_contain_text("«Добавить на главный экран»")
    expect(page.locator('[data-for="iphone"]')).to_contain_text("На экран “Домой”")
    page.screenshot(path=str(artifacts / f"install-{browser}-360x740.png"), full_page=True)
    context.close()


def test_rules_of_each_game_in_russian_and_english(web: Server, chromium: Browser) -> None:
    page = chromium.new_page(viewport=PHONE)
    page.goto(web.url + "/rules/classic")
    rules = page.locator("article.rules")
    expect(rules.locator("h2")).to_have_count(8)
    expect(rules.locator("h2").first).to_have_text("1. Место за столом и готовность")
    expect(rules.locator("li", has_text="Забился")).to_have_count(1)
    page.click("text=English")
    expect(page).to_have_url(re.compile(r"/rules/classic\?lang=en$"))
    expect(rules.locator("li", has_text="Lock in")).to_have_count(1)
    page.click(".tabs a[href*=shaha36]")
    expect(page).to_have_url(re.compile(r"/rules/shaha36\?lang=en$"))
    page.click("text=Русский")
    expect(rules).to_contain_text("«шаха»")
    page.goto(web.url + "/rules/svara32")
    expect(rules).to_contain_text("семёрка треф (7♣)")
    assert page.request.get(web.url + "/rules/poker").status == 404
    page.close()


def test_settings_auto_count_four_colours_and_english(people: list[Player]) -> None:
    """C-3.9: the count is off by default and, once switched on, shows the engine's own
    points of the viewer's cards; ♦ turn blue; the buttons speak English."""
    anna, boris, _ = people
    table = Table([anna, boris], anna.new_table("Настройки " + anna.name, "classic", 2))
    table.seat_everyone()
    table.start()
    expect(anna.page.locator("[data-count]")).to_have_count(0)
    anna.page.click('[data-panel="settings-panel"]')
    form = anna.page.locator("#settings-panel form")
    form.locator("input[name=autoCount]").check()
    form.locator("input[name=fourColour]").check()
    form.locator("input[value=en]").check()
    anna.page.click("#settings-panel [data-close]")
    cards = anna.page.locator(".my-cards .card").evaluate_all("els => els.map(e => e.dataset.card)")
    score = SCORERS["classic"].score([parse_card(c) for c in cards])
    count = anna.page.locator("[data-count]")
    if score.absolute:
        expect(count).to_have_text("absolute hand")
    else:
        expect(count).to_contain_text(f"{score.points:g}".replace(".", ","))
    expect(anna.page.locator('[data-panel="history-panel"]')).to_have_attribute(
        "aria-label", "Action history"
    )
    expect(anna.page.locator("#rules-link")).to_have_attribute("href", "/rules/classic?lang=en")
    # Four colours: ♦ blue and ♣ green, ♥ stays red (suits also differ by shape).
    anna.page.evaluate(
        """async () => {
          const { cardHtml } = await import("/static/js/cards.js");
          const probe = document.createElement("div");
          probe.id = "probe";
          probe.innerHTML = ["Q♦", "Q♥", "Q♣"].map((c) => cardHtml(c)).join("");
          document.body.append(probe);
        }"""
    )
    colours = anna.page.locator("#probe .face").evaluate_all(
        "els => els.map(e => getComputedStyle(e).color)"
    )
    assert colours == ["rgb(29, 78, 216)", "rgb(200, 16, 46)", "rgb(21, 128, 61)"]
    # English: the acting player's buttons.
    if not anna.labels():
        table.do("Дал 10", boris)
    assert "Fold" in anna.labels()
    assert all(re.fullmatch(r"[A-Za-z0-9 ]+", label) for label in anna.labels())
    # The settings are kept: a new page of the same person starts with them.
    page = anna.context.new_page()
    page.goto(f"{anna.base}/settings")
    expect(page.locator("input[name=autoCount]")).to_be_checked()
    expect(page.locator("h1")).to_have_text("Settings")
    page.close()


def test_a_second_device_takes_the_game_over(people: list[Player], chromium: Browser) -> None:
    """C-8.2: one connection per account at a table; the old page says why in true words,
    stops reconnecting and offers «Играть здесь» (tests/browser/test_tabs.py clicks it)."""
    anna = people[0]
    assert anna.page.request.get(f"{anna.base}/table/999999").status == 404
    table_id = anna.new_table("Два устройства " + anna.name, "classic", 4)
    anna.open_table(table_id)
    other = chromium.new_context(viewport=PHONE)
    page = other.new_page()
    page.goto(f"{anna.base}/login?next=/table/{table_id}")
    page.fill("input[name=name]", anna.name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    expect(page.locator(".seat").first).to_be_visible()
    net = anna.page.locator("[data-net]")
    expect(net).to_have_text("Стол открыт в другой вкладке или на другом устройстве Играть здесь")
    expect(page.locator("[data-net]")).to_be_hidden()
    other.close()
