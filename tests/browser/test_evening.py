"""The friends' evening without a terminal, in Chromium against a real `svara serve`:

- the host copies a private table's invite link, or shows its QR code to be read by a
  phone's camera;
- a friend follows the invite link logged out, the login and «Регистрация» name the table,
  the sign-up lands him at the private table, short of money: he asks for chips, the host
  approves in one tap on «Вечер» (/admin), and the friend's page seats him without a reload;
- a grant from the host's page adds a ledger row (reason and who) and the player's open
  pages show the new money at once; «Поднять» stands him up and he is told;
- «Заполнить места ботами» with too little in the house is a Russian sentence in place,
  with the way to fund it (the administrator's link to the house on «Вечер»).

Screenshots of each new state at 390×844 and 1280×800 go to test-artifacts/browser/.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import requests
import zxingcpp
from PIL import Image
from playwright.sync_api import Page
from playwright.sync_api import expect as pw_expect
from sqlmodel import select

from app.models import Table, User
from tests.server.conftest import Browser as Http
from tests.server.conftest import Server, unique_name
from tests.server.tablekit import admin, database, grants

from .conftest import DESKTOP, TIMEOUT_MS, Crowd, Player, sign_up
from .layout import problems
from .test_languages import CYRILLIC, RUSSIAN_LETTERS, choose_language

PHONE = {"width": 390, "height": 844}
PHONE_360 = {"width": 360, "height": 740}


def read_qr(png: bytes) -> list[str]:
    """What a QR code in a screenshot says, read as a phone's camera reads it (zxing)."""
    return [code.text for code in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))]


def _person(crowd: Crowd, name: str, size: dict[str, int]) -> Player:
    """Someone not registered yet, in a browser of his own (closed with the crowd)."""
    context = crowd.chromium.new_context(
        viewport=size, locale="ru-RU", has_touch=size is PHONE, is_mobile=size is PHONE
    )
    context.set_default_timeout(TIMEOUT_MS)
    player = Player(name, context, context.new_page(), crowd.server.url)
    player.watch()
    crowd.made.append(player)
    return player


def _host(crowd: Crowd, web: Server, size: dict[str, int] = DESKTOP) -> Player:
    """«Иван», an administrator (`svara admin user admin --grant`), on «Вечер»."""
    host = crowd.add(size, "Иван")
    admin(web, "user", "admin", host.name, "--grant")
    host.page.goto(web.url + "/admin")
    pw_expect(host.page.locator("h1")).to_have_text("Вечер")
    return host


def _both_sizes(page: Page, player: Player, folder: Path, name: str) -> None:
    """The state now at 390×844 and at 1280×800 (the page keeps its state)."""
    before = page.viewport_size
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        player.shot(folder, name)
    if before:
        page.set_viewport_size(before)


def test_a_friend_signs_up_from_the_invite_asks_for_chips_and_is_seated(
    web: Server, crowd: Crowd, artifacts: Path
) -> None:
    maria = crowd.add(DESKTOP, "Мария")
    page = maria.page
    page.goto(web.url + "/")
    page.fill("#new-table input[name=name]", "Пятница")
    page.check("#new-table input[name=private]")
    page.click("#new-table button[type=submit]")
    row = page.locator(".private-row", has_text="Пятница")
    old = row.locator(".invite-link").input_value()
    # «Новая ссылка»: the old link stops opening the table.
    row.get_by_role("button", name="Новая ссылка").click()
    pw_expect(page).to_have_url(re.compile(r"/#private-tables$"))
    link = page.locator(".private-row", has_text="Пятница").locator(".invite-link").input_value()
    assert link != old
    _both_sizes(page, maria, artifacts, "evening-invite-renewed")
    # «Скопировать» puts the link on the clipboard; the QR code beside it is read, as a
    # friend's phone camera reads the host's screen, as that same link.
    maria.context.grant_permissions(["clipboard-read", "clipboard-write"])
    row = page.locator(".private-row", has_text="Пятница")
    row.get_by_role("button", name="Скопировать").click()
    pw_expect(row.locator(".copied")).to_have_text("Ссылка скопирована")
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    row.locator(".invite-qr summary").click()
    assert read_qr(row.locator(".invite-qr svg").screenshot()) == [link]
    for size in (PHONE_360, PHONE):
        page.set_viewport_size(size)
        assert problems(page) == [], size  # the link, its buttons and the code fit a phone
        maria.shot(artifacts, "evening-invite-qr")
    page.set_viewport_size(DESKTOP)
    # At the table, its menu calls one more friend: the same link, copied or read.
    page.goto(web.url + (row.locator("a").first.get_attribute("href") or ""))
    page.locator("#host-menu").click()
    invite = page.locator("#host-panel .host-invite")
    pw_expect(invite.locator("h3")).to_have_text("Позвать друзей")
    assert invite.locator(".invite-link").input_value() == link
    invite.get_by_role("button", name="Скопировать").click()
    pw_expect(invite.locator(".copied")).to_be_visible()
    invite.locator(".invite-qr summary").click()
    assert read_qr(invite.locator(".invite-qr svg").screenshot()) == [link]
    maria.shot(artifacts, "evening-table-invite")
    assert requests.get(old, allow_redirects=False, timeout=20).status_code == 302  # to login
    assert maria.context.request.get(old).status == 404
    host = _host(crowd, web)
    # At a table of his own the host has the badge of requests too (and answers there).
    at_table = host.context.new_page()
    at_table.goto(web.url + "/table/1?watch=1")
    pw_expect(at_table.locator(".seat").first).to_be_visible()
    badge = at_table.locator("#asks-badge")
    pw_expect(badge).to_be_hidden()
    friend = _person(crowd, unique_name("Ёж"), PHONE)
    fp = friend.page
    fp.goto(link)
    pw_expect(fp).to_have_url(re.compile(r"/login\?next=%2Finvite%2F|/login\?next=/invite/"))
    pw_expect(fp.locator("#invited")).to_have_text("Вас пригласили за стол «Пятница»")
    _both_sizes(fp, friend, artifacts, "evening-login-invited")
    fp.click("#to-register")
    pw_expect(fp).to_have_url(re.compile(r"/register\?next="))
    pw_expect(fp.locator("#invited")).to_have_text("Вас пригласили за стол «Пятница»")
    sign_up(fp, friend.name)
    pw_expect(fp).to_have_url(re.compile(r"/table/\d+$"))
    table_id = int(fp.url.rsplit("/", 1)[1])
    # A new player has 0 ₽: he watches, told what is missing and who can add it (C-0.1).
    pw_expect(fp.locator(".note")).to_have_text("Не хватает денег: ещё 10 ₽ (нужно 10 ₽)")
    ask = fp.locator("#ask-chips")
    pw_expect(ask.locator(".ask-hosts")).to_contain_text(f"{host.name} (в сети)")
    pw_expect(fp.locator(f'.seat[data-seat="{friend.name}"]')).to_have_count(0)
    _both_sizes(fp, friend, artifacts, "evening-ask-chips")
    ask.locator("input[name=amount]").fill("500")
    ask.get_by_role("button", name="Попросить фишки").click()
    pw_expect(ask.locator(".ask-said")).to_have_text(
        "Просьба отправлена: 500 ₽. Ждём ответа администратора"
    )
    # The host's page shows it at once, with its badge: no reload.
    hp = host.page
    request = hp.locator("#asks-list .ask", has_text=friend.name)
    asked = re.compile(f"{friend.name} просит 500\\s₽ \\(стол «Пятница»\\)")
    pw_expect(request).to_have_text(asked)
    pw_expect(hp.locator("#asks-count")).to_be_visible()
    _both_sizes(hp, host, artifacts, "evening-admin-request")
    pw_expect(badge).to_be_visible()
    pw_expect(badge.locator(".badge")).to_have_text("1")
    badge.click()
    pw_expect(at_table.locator("#asks-list .ask", has_text=friend.name)).to_be_visible()
    at_table.set_viewport_size(PHONE)
    at_table.screenshot(path=str(artifacts / "evening-table-requests-390x844.png"))
    at_table.set_viewport_size(DESKTOP)
    at_table.screenshot(path=str(artifacts / "evening-table-requests-1280x800.png"))
    request.get_by_role("button", name="Дать").click()
    pw_expect(hp.locator("#asks .admin-said")).to_have_text(
        f"«{friend.name}» получает 500 ₽ по своей просьбе"
    )
    # The friend's page: the money came, the note went, and he sits (C-1.2) — no reload.
    pw_expect(fp.locator("#toast")).to_have_text(f"Вам зачислено 500 ₽ ({host.name})")
    pw_expect(fp.locator(f'.seat[data-seat="{friend.name}"]')).to_be_visible()
    pw_expect(fp.locator(".note")).to_have_count(0)
    pw_expect(ask).to_be_hidden()
    pw_expect(badge).to_be_hidden()  # answered: gone from every administrator's page
    assert f"/table/{table_id}" in fp.url
    _both_sizes(fp, friend, artifacts, "evening-seated-after-grant")
    assert grants(web, friend.name) == [(500, f"request from {friend.name}", host.name)]
    for person in (maria, host, friend):
        assert person.errors == [], (person.name, person.errors)


def test_a_grant_from_the_hosts_page_reaches_the_players_pages_at_once(
    web: Server, crowd: Crowd, artifacts: Path
) -> None:
    masha = crowd.add(PHONE, "Мария")
    table_id = masha.new_table("Классика у Ежа", "classic", 4)  # she sits as she opens it
    seat = masha.page.locator(f'.seat[data-seat="{masha.name}"]')
    pw_expect(seat).to_contain_text("1 000 ₽")
    lobby = masha.context.new_page()
    lobby.goto(web.url + "/")
    pw_expect(lobby.locator("#balance b")).to_have_text(re.compile(r"1\s000\s₽"))
    host = _host(crowd, web)
    hp = host.page
    row = hp.locator(f'tr.account[data-account="{masha.name}"]')
    pw_expect(row.locator(".account-where")).to_contain_text("за столом «Классика у Ежа»")
    _both_sizes(hp, host, artifacts, "evening-admin-accounts")
    # Refused in the page's words, nothing moved.
    row.locator("input[name=amount]").fill("5000")
    row.locator("input[name=reason]").fill("ошибка")
    row.get_by_role("button", name="Забрать").click()
    pw_expect(hp.locator("#accounts .admin-said.refused")).to_have_text(
        f"У «{masha.name}» 1 000 ₽: забрать 5 000 ₽ нельзя, баланс не бывает меньше 0"
    )
    _both_sizes(hp, host, artifacts, "evening-admin-refused")
    row = hp.locator(f'tr.account[data-account="{masha.name}"]')
    row.locator("input[name=amount]").fill("300")
    row.locator("input[name=reason]").fill("наличные за вечер")
    row.get_by_role("button", name="Дать").click()
    pw_expect(hp.locator("#accounts .admin-said.ok")).to_have_text(
        f"«{masha.name}»: +300 ₽, на счёте теперь 1 300 ₽"
    )
    # Her table and her lobby show it without a reload.
    pw_expect(seat).to_contain_text("1 300 ₽")
    pw_expect(lobby.locator("#balance b")).to_have_text(re.compile(r"1\s300\s₽"))
    assert grants(web, masha.name)[-1] == (300, "наличные за вечер", host.name)
    # «Поднять»: she stands up and is told who did it.
    player = hp.locator(f'[data-admin-table="{table_id}"] li', has_text=masha.name)
    player.get_by_role("button", name="Поднять").click()
    pw_expect(hp.locator("#tables .admin-said")).to_have_text(
        f"«{masha.name}» встаёт из-за стола «Классика у Ежа»"
    )
    pw_expect(masha.page.locator("#toast")).to_have_text("Администратор поднимает вас из-за стола")
    pw_expect(seat).to_have_count(0)
    _both_sizes(hp, host, artifacts, "evening-admin-stood")
    assert masha.errors == []
    assert all("status of 409" in e for e in host.errors), host.errors  # the refused form


def test_bots_without_a_house_say_so_in_place(web: Server, crowd: Crowd, artifacts: Path) -> None:
    house = admin(web, "house", "show")["house"]
    if house:
        admin(web, "house", "grant", str(-house), "--reason", "the evening starts empty")
    masha = crowd.add(PHONE, "Мария")
    masha.new_table("Боты у Марии", "classic", 4)
    page = masha.page
    page.goto(web.url + "/")
    own = page.locator("#own-tables li", has_text="Боты у Марии")
    own.get_by_role("button", name="Заполнить места ботами").click()
    pw_expect(page).to_have_url(re.compile(r"/#own-tables$"))
    refused = page.locator("#own-tables li", has_text="Боты у Марии").locator(".bots-refused")
    pw_expect(refused).to_contain_text(
        "Ботам не на что играть: в кассе 0 ₽, а каждому боту за этим столом нужно 1 000 ₽."
    )
    pw_expect(refused).to_contain_text("Деньги в кассу кладёт администратор:")
    _both_sizes(page, masha, artifacts, "evening-bots-refused")
    host = _host(crowd, web)
    hp = host.page
    host.new_table("Боты у Ивана", "classic", 4)
    hp.goto(web.url + "/")
    hp.locator("#own-tables li", has_text="Боты у Ивана").get_by_role(
        "button", name="Заполнить места ботами"
    ).click()
    fund = hp.locator("#own-tables li", has_text="Боты у Ивана").locator("#fund-house")
    pw_expect(fund).to_have_text("пополнить кассу")
    _both_sizes(hp, host, artifacts, "evening-bots-refused-admin")
    fund.click()
    pw_expect(hp).to_have_url(re.compile(r"/admin#house$"))
    form = hp.locator("#house-form")
    form.locator("input[name=amount]").fill("5000")
    form.locator("input[name=reason]").fill("ботам на вечер")
    form.get_by_role("button", name="Дать").click()
    pw_expect(hp.locator("#house .admin-said")).to_have_text(
        "Касса: +5 000 ₽, в кассе теперь 5 000 ₽"
    )
    _both_sizes(hp, host, artifacts, "evening-admin-house")
    hp.goto(web.url + "/")
    hp.locator("#own-tables li", has_text="Боты у Ивана").get_by_role(
        "button", name="Заполнить места ботами"
    ).click()
    seated = hp.locator("#own-tables li", has_text="Боты у Ивана")
    pw_expect(seated).to_contain_text(re.compile(r"ботов: [1-9]"))
    pw_expect(seated.locator(".bots-refused")).to_have_count(0)
    for person in (masha, host):
        assert person.errors == [], (person.name, person.errors)


def test_the_hosts_page_is_for_administrators_only(web: Server) -> None:
    """Anyone else gets the 404 of a page that does not exist; a form without its CSRF
    token is refused and changes nothing."""
    player = Http(web.url)
    player.register(unique_name("Ёж"))
    assert player.http.get(web.url + "/admin", timeout=20).status_code == 404
    sent = player.http.post(web.url + "/admin/house", data={"amount": "5", "reason": "x"})
    assert sent.status_code in (400, 404)
    assert requests.get(web.url + "/admin", allow_redirects=False, timeout=20).status_code == 302


VISIBLE = """() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const out = [document.title];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (text && node.parentElement.checkVisibility()) out.push(text);
  }
  for (const el of document.querySelectorAll("[aria-label], [placeholder]")) {
    out.push(el.ariaLabel || "", el.placeholder || "");
  }
  return out;
}"""


def _words_left(page: Page, web: Server) -> list[str]:
    """The page's visible words in Cyrillic, but for what players named (accounts, tables)."""
    db = database(web)
    with db.session() as s:
        names = [*s.exec(select(User.name)).all(), *s.exec(select(Table.name)).all()]
    db.dispose()
    left = []
    for text in page.evaluate(VISIBLE):
        for name in sorted(names, key=len, reverse=True):
            text = text.replace(name, "")
        if CYRILLIC.search(text):
            left.append(text)
    return left


def test_the_hosts_page_speaks_the_chosen_language(web: Server, crowd: Crowd) -> None:
    """English or Bulgarian chosen: every word of «Вечер», its results and its refusals too,
    is in that language (no Russian but the players' own names)."""
    host = _host(crowd, web)
    hp = host.page
    for label, lang, title, refusal in (
        ("English", "en", "The evening", "Check the fields"),
        ("Български", "bg", "Вечерта", "Проверете полетата"),
    ):
        choose_language(hp, web.url, label)
        hp.goto(web.url + "/admin")
        pw_expect(hp.locator("h1")).to_have_text(title)
        row = hp.locator(f'tr.account[data-account="{host.name}"]')
        row.locator("input[name=amount]").fill("0")
        row.locator("input[name=reason]").fill("x")
        row.locator("input[name=amount]").evaluate("el => el.removeAttribute('min')")
        row.locator("button[value=give]").click()
        pw_expect(hp.locator("#accounts .admin-said.refused")).to_contain_text(refusal)
        left = _words_left(hp, web)
        if lang == "en":
            assert left == [], left
        else:
            assert not [w for w in left if RUSSIAN_LETTERS.search(w)], left
    choose_language(hp, web.url, "Русский")
    assert all("status of 400" in e for e in host.errors), host.errors
