"""Real Chromium (Debian's /usr/bin/chromium, headless, never a downloaded browser) against a
real `svara serve` (tests/server/conftest.py): players register, sit and play by clicking.

Nothing sleeps to wait: Playwright's `expect` and `wait_for_*` poll the page for a condition
with a timeout. Screenshots go to test-artifacts/browser/ (gitignored), kept after the run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Locator,
    Page,
    Playwright,
    sync_playwright,
)
from playwright.sync_api import expect as pw_expect

from tests.server.conftest import Server, start_server, stopped, unique_name
from tests.server.tablekit import grant

from .felt import open_felt

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
TIMEOUT_MS = 15_000
PASSWORD = "correct horse battery"

pw_expect.set_options(timeout=TIMEOUT_MS)


@contextmanager
def serving(tmp_path_factory: pytest.TempPathFactory, name: str, **env: str) -> Iterator[Server]:
    """A real server (eventlet, the designed mode) on an instance of its own, with `env` (its
    SVARA_* settings); stopped on the way out, whatever happened."""
    server = start_server(tmp_path_factory.mktemp(name), "eventlet", **env)
    with stopped(server):
        yield server


@pytest.fixture(scope="session")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One real server for every browser test."""
    with serving(tmp_path_factory, "browser-instance") as server:
        yield server


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
]


@pytest.fixture(scope="module")
def driver() -> Iterator[Playwright]:
    # Module scope: Playwright's sync API marks an asyncio loop as running while it lives,
    # which would break every later test that calls asyncio.run (the voice tests).
    with sync_playwright() as p:
        yield p


@contextmanager
def launched(driver: Playwright, args: list[str]) -> Iterator[Browser]:
    """Debian's Chromium, headless, with `args`; closed on the way out."""
    browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture(scope="module")
def chromium(driver: Playwright) -> Iterator[Browser]:
    with launched(driver, CHROMIUM_ARGS) as browser:
        yield browser


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def sign_up(page: Page, name: str) -> None:
    """Fill the «Регистрация» form open on `page` with `name` and the test password, and send
    it."""
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=confirm]", PASSWORD)
    page.click("form button[type=submit]")


@dataclass
class Player:
    """One person in their own browser context, with what went wrong on their pages."""

    name: str
    context: BrowserContext
    page: Page
    base: str
    errors: list[str] = field(default_factory=list)

    def watch(self) -> None:
        def console(msg: ConsoleMessage) -> None:
            if msg.type == "error" and "favicon" not in msg.text:
                self.errors.append(msg.text)

        self.page.on("console", console)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def register(self) -> None:
        """Register through the page, as a person does."""
        self.fill_registration()
        self.page.wait_for_url(re.compile(r"/$"))

    def fill_registration(self) -> None:
        """Fill the registration form with this name and send it."""
        self.page.goto(self.base + "/register")
        sign_up(self.page, self.name)

    def new_table(self, name: str, variant: str, seats: int) -> int:
        """Open a table from the lobby form («Открыть стол» opens the new table's page); its
        id from that page's address."""
        page = self.page
        page.goto(self.base + "/")
        page.fill("#new-table input[name=name]", name)
        page.select_option("#new-table select[name=variant]", variant)
        page.fill("#new-table input[name=seats]", str(seats))
        page.click("#new-table button[type=submit]")
        # The address is what is waited for, not the page's `load` (its fonts and scripts on
        # a busy machine): whoever uses the page next waits for what he needs of it.
        page.wait_for_url(re.compile(r"/table/\d+$"), wait_until="commit")
        return int(page.url.rsplit("/", 1)[1])

    def open_table(self, table_id: int, watch: bool = True) -> None:
        """The table's page: as a spectator (the lobby's «Смотреть»), or entering it, which
        takes a free seat (C-1.2; at a table of stacks it asks for the buy-in first)."""
        self.page.goto(f"{self.base}/table/{table_id}" + ("?watch=1" if watch else ""))
        pw_expect(self.page.locator(".seat").first).to_be_visible()

    def sit(self, stack: int | None = None) -> None:
        """«Сесть за стол» — unless he sits already (a classic table's creator sat down
        when «Открыть стол» opened it); at a table of stacks, confirm the buy-in (S-1.5):
        `stack`, or the smallest one offered."""
        buy_in = self.page.locator("#buy-in")
        if not buy_in.is_visible():
            if self.page.locator(f'.seat[data-seat="{self.name}"]').count():
                return
            self.click("Сесть за стол")
        if buy_in.count():
            pw_expect(buy_in).to_be_visible()
            if stack is not None:
                buy_in.locator(".amount-input").fill(str(stack))
            buy_in.locator('button[data-buy-in="sit"]').click()
            pw_expect(buy_in).to_be_hidden()

    def shot(self, folder: Path, name: str) -> Path:
        """A screenshot named after what it shows and the viewport it was taken in."""
        size = self.page.viewport_size or {"width": 0, "height": 0}
        path = folder / f"{name}-{size['width']}x{size['height']}.png"
        self.page.screenshot(path=str(path), animations="disabled")
        return path

    # --- the table ----------------------------------------------------------------------
    def bar(self, label: str) -> Locator:
        """A button of the action bar or a dialog whose label is exactly `label`."""
        exact = self.page.locator(".label", has_text=re.compile(f"^{re.escape(label)}$"))
        return self.page.locator("#actions button, #dialog button", has=exact)

    def labels(self) -> list[str]:
        """The labels of every action offered now (bar and dialogs)."""
        return self.page.locator("#actions .act .label, #dialog .act .label").all_inner_texts()

    def click(self, label: str) -> None:
        button = self.bar(label)
        pw_expect(button).to_have_count(1)
        button.click()


class Crowd:
    """People for one test, each in a browser context of their own (closed at teardown)."""

    def __init__(self, server: Server, chromium: Browser):
        self.server, self.chromium = server, chromium
        self.made: list[Player] = []

    def add(self, viewport: dict[str, int], prefix: str) -> Player:
        """A registered player with 1000 ₽, on a phone (touch) or a desktop."""
        context = self.chromium.new_context(
            viewport=viewport,
            locale="ru-RU",
            has_touch=viewport is PHONE,
            is_mobile=viewport is PHONE,
            device_scale_factor=2 if viewport is PHONE else 1,
        )
        context.set_default_timeout(TIMEOUT_MS)
        player = Player(unique_name(prefix), context, context.new_page(), self.server.url)
        player.watch()
        player.register()
        grant(self.server, player.name, 1000)
        self.made.append(player)
        return player

    def close(self) -> None:
        for p in self.made:
            p.context.close()


@contextmanager
def gathered(server: Server, chromium: Browser) -> Iterator[Crowd]:
    """A crowd on `server` whose people's contexts are closed on the way out."""
    made = Crowd(server, chromium)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def crowd(web: Server, chromium: Browser) -> Iterator[Crowd]:
    with gathered(web, chromium) as made:
        yield made


@pytest.fixture
def people(crowd: Crowd) -> list[Player]:
    """Three registered players, each with 1000 ₽: anna (phone), boris (desktop), vera
    (phone)."""
    return [crowd.add(PHONE, "anna"), crowd.add(DESKTOP, "boris"), crowd.add(PHONE, "vera")]


class Table:
    """The players of one table, driven by what their pages offer.

    Every click is followed by waiting until each page has drawn a newer `table:state`
    (body[data-version]), so the next decision reads the state the click produced."""

    def __init__(self, players: list[Player], table_id: int):
        self.players = players
        self.id = table_id

    def seat_everyone(self, stacks: dict[str, int] | None = None) -> None:
        """Each player opens the table and presses «Сесть за стол» (C-1.2); at a table of
        stacks he confirms the buy-in, the smallest unless `stacks` names his (S-1.5)."""
        for p in self.players:
            p.open_table(self.id)
            p.sit((stacks or {}).get(p.name))
            pw_expect(p.page.locator(f'.seat[data-seat="{p.name}"]')).to_be_visible()

    def start(
        self,
        ready: str = "Готов",
        dark: Player | None = None,
        dark_label: str = "",
        answered: tuple[Player, ...] = (),
    ) -> None:
        """Everyone (but those who `answered` already) answers the gathering (`dark` plays
        dark instead); the hand starts when all have answered (C-1.3's Decision) and everyone
        holds three cards."""
        for p in self.players:
            if p not in answered:
                self.do(dark_label if p is dark else ready, p)
        for p in self.players:
            pw_expect(p.page.locator(".my-cards .card")).to_have_count(3)

    def over(self, ready: str = "Готов") -> None:
        """The hand is over: everyone is offered the next one."""
        for p in self.players:
            pw_expect(p.bar(ready)).to_have_count(1)

    def version(self) -> int:
        return int(self.players[0].page.locator("body").get_attribute("data-version") or -1)

    def sync(self, before: int) -> None:
        for p in self.players:
            p.page.wait_for_function(
                "v => Number(document.body.dataset.version ?? -1) > v", arg=before
            )

    def who_can(self, label: str) -> list[Player]:
        return [p for p in self.players if p.bar(label).count() == 1]

    def do(self, label: str, who: Player | None = None) -> Player:
        """Click `label` on `who`'s page (or the one page that offers it)."""
        if who is None:
            able = self.who_can(label)
            assert able, f"nobody is offered {label!r}: " + "; ".join(
                f"{p.name}: {p.labels()}" for p in self.players
            )
            who = able[0]
        before = self.version()
        who.click(label)
        self.sync(before)
        return who

    def tap_card(self, who: Player) -> None:
        """Turn one of one's face-down cards by tapping it (S-1.3, B-4.3)."""
        before = self.version()
        who.page.locator(".my-cards .card.tap").first.click()
        self.sync(before)

    def first_of(self, labels: list[str]) -> tuple[Player, str]:
        """The first of `labels` that some player is offered now."""
        for label in labels:
            able = self.who_can(label)
            if able:
                return able[0], label
        raise AssertionError(
            f"none of {labels} is offered: "
            + "; ".join(f"{p.name}: {p.labels()}" for p in self.players)
        )

    def play_until(self, done: str, labels: list[str], limit: int = 40) -> list[str]:
        """Click the first offered of `labels` until some page offers `done`."""
        clicked: list[str] = []
        for _ in range(limit):
            if self.who_can(done):
                return clicked
            who, label = self.first_of(labels)
            self.do(label, who)
            clicked.append(label)
        raise AssertionError(f"{done!r} never came after {clicked}")


@pytest.fixture
def felt(web: Server, chromium: Browser) -> Iterator[Callable[[dict[str, int]], Page]]:
    """Pages of templates/table.html drawn from made-up states (tests/browser/felt.py), one
    per viewport asked for."""
    pages: list[Page] = []

    def make(size: dict[str, int]) -> Page:
        context = chromium.new_context(viewport=size, device_scale_factor=1, locale="ru-RU")
        page = context.new_page()
        pages.append(page)
        open_felt(page, web.url)
        return page

    yield make
    for page in pages:
        page.context.close()
