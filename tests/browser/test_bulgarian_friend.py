"""A Bulgarian friend follows the host's invite link on his phone (docs/i18n.md, «Which
language a page speaks»): his browser's Bulgarian is the page's, without a setting; he opens
«Настройки» on his way in, switches the language, and «Регистрация» there still takes him
to the table he was invited to, not to the lobby."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from tests.server.conftest import unique_name

from .conftest import DESKTOP, TIMEOUT_MS, Crowd, sign_up
from .test_evening import PHONE_360


def test_a_bulgarian_phone_reads_bulgarian_and_keeps_the_invite_through_the_settings(
    crowd: Crowd, artifacts: Path
) -> None:
    ivan = crowd.add(DESKTOP, "Иван")
    page = ivan.page
    page.goto(crowd.server.url + "/")
    page.fill("#new-table input[name=name]", "Петък")
    page.check("#new-table input[name=private]")
    page.click("#new-table button[type=submit]")
    link = page.locator(".private-row", has_text="Петък").locator(".invite-link").input_value()

    context = crowd.chromium.new_context(
        viewport=PHONE_360, locale="bg-BG", has_touch=True, is_mobile=True
    )
    try:
        context.set_default_timeout(TIMEOUT_MS)
        phone = context.new_page()
        phone.goto(link)
        expect(phone).to_have_url(re.compile(r"/login\?next="))
        expect(phone.locator("html")).to_have_attribute("lang", "bg")
        expect(phone.locator("#invited")).to_have_text("Поканени сте на масата «Петък»")
        phone.screenshot(path=str(artifacts / "bulgarian-invited-360x740.png"))

        phone.locator(".site-footer a", has_text="Настройки").click()
        expect(phone).to_have_url(re.compile(r"/settings\?next=(%2F|/)invite(%2F|/)"))
        # The form bound (its saved language checked) before a choice: a click before that
        # would be undone by the binding (test_languages' `choose_language`).
        expect(phone.locator("input[name=lang][value=bg]:checked")).to_have_count(1)
        phone.locator(".settings-form .lang input[value=en]").check()
        expect(phone.locator(".settings-form .saved")).to_be_visible()
        expect(phone.locator("html")).to_have_attribute("lang", "en")
        phone.locator(".site-nav a", has_text="Register").click()
        expect(phone.locator("#invited")).to_have_text("You are invited to the table «Петък»")
        sign_up(phone, unique_name("Ёж"))
        expect(phone).to_have_url(re.compile(r"/table/\d+$"))
        expect(phone.locator("html")).to_have_attribute("lang", "en")
    finally:
        context.close()
