"""When the table is not in front (static/js/attention.js, docs/rules.md «The table in the
browser»): «Иван» switched to another tab while «Мария» plays; his turn comes and his page
says so with its title, the turn's sound, a vibration and — allowed in his settings — a
system notification, all gone again when he comes back. The screen is kept on while he
plays a hand. A phone whose browser refuses sound without a tap shows «Включить звук».

Headless Chromium never hides a page and has no vibration motor: the init script hides the
page as a switched tab does (document.hidden, visibilitychange) and records what the page
asked of the device (vibrations, the sound's oscillators, wake locks). The notification is
read back from the browser itself (the service worker registration's `getNotifications`).
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import CDPSession, Playwright
from playwright.sync_api import expect as pw_expect

from .conftest import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PASSWORD, PHONE, Crowd, Player, Table

DEVICE = """(() => {
  let hidden = false;
  Object.defineProperty(Document.prototype, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(Document.prototype, "visibilityState", {
    configurable: true, get: () => (hidden ? "hidden" : "visible") });
  window.__setHidden = (h) => {
    hidden = h;
    document.dispatchEvent(new Event("visibilitychange"));
  };
  const seen = (window.__seen = { buzz: [], tones: 0, contexts: [], locks: 0, released: 0 });
  const Audio = AudioContext;
  window.AudioContext = class extends Audio {
    constructor(...args) {
      super(...args);
      seen.contexts.push(this);
    }
  };
  navigator.vibrate = (pattern) => { seen.buzz.push(pattern); return true; };
  const oscillator = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () {
    seen.tones += 1;
    return oscillator.call(this);
  };
  const wake = navigator.wakeLock;
  if (wake) {
    const request = wake.request.bind(wake);
    wake.request = async (type) => {
      const lock = await request(type);
      seen.locks += 1;
      lock.addEventListener("release", () => (seen.released += 1));
      return lock;
    };
  }
})();"""

NOTIFICATIONS = """async () => {
  const registration = await navigator.serviceWorker.getRegistration();
  return registration ? (await registration.getNotifications({ tag: "svara-turn" }))
    .map((n) => [n.title, n.body]) : null;
}"""


# Resolves once `condition` holds on the page (checked at each change of the DOM), or to
# false after 20 s.
WHEN = """new Promise((done) => {
  const holds = () => { try { return CONDITION; } catch { return false; } };
  if (holds()) return done(holds());
  const watch = new MutationObserver(() => holds() && (watch.disconnect(), done(holds())));
  const all = { subtree: true, childList: true, attributes: true, characterData: true };
  watch.observe(document, all);
  setTimeout(() => (watch.disconnect(), done(holds())), 20000);
})"""


def quietly(cdp: CDPSession, condition: str) -> object:
    """`condition` on the page once it holds (or its value after 20 s), evaluated without
    a user gesture."""
    reply = cdp.send(
        "Runtime.evaluate",
        {
            "expression": WHEN.replace("CONDITION", condition),
            "awaitPromise": True,
            "returnByValue": True,
            "userGesture": False,
        },
    )
    return reply["result"].get("value")


def seen(player: Player) -> dict[str, object]:
    return dict(player.page.evaluate("window.__seen"))


def test_a_hidden_tab_is_told_its_turn_and_the_screen_stays_on(
    crowd: Crowd, artifacts: Path
) -> None:
    ivan, maria = crowd.add(DESKTOP, "Иван"), crowd.add(PHONE, "Мария")
    ivan.context.grant_permissions(["notifications", "screen-wake-lock"], origin=ivan.base)
    ivan.context.add_init_script(DEVICE)
    table = Table([ivan, maria], ivan.new_table("Вечер " + ivan.name, "classic", 3))
    table.seat_everyone()
    # His settings: «Уведомлять о моём ходе» (the browser asks; the test's context allows).
    ivan.page.click('[data-panel="settings-panel"]')
    ivan.page.locator("#settings-panel input[name=notify]").check()
    pw_expect(ivan.page.locator("#settings-panel [data-notify-refused]")).to_be_hidden()
    ivan.page.click("#settings-panel [data-close]")
    title = ivan.page.title()

    table.start()
    assert seen(ivan)["locks"] >= 1  # the screen stays on while he plays the hand
    ivan.page.evaluate("window.__setHidden(true)")  # another tab
    tones = int(seen(ivan)["tones"])  # type: ignore[call-overload]
    while ivan.bar("Дал 10").count() == 0:
        table.do("Дал 10", maria)
    pw_expect(ivan.page).to_have_title(f"● Ваш ход · {title}")
    assert seen(ivan)["buzz"] == [[180, 90, 180]]
    assert int(seen(ivan)["tones"]) > tones  # type: ignore[call-overload]
    ivan.page.wait_for_function(f"async () => ((await ({NOTIFICATIONS})()) || []).length > 0")
    assert ivan.page.evaluate(NOTIFICATIONS) == [["Ваш ход", f"Вечер {ivan.name}"]]
    assert seen(ivan)["released"] >= 1  # hidden: the wake lock is let go

    # Back in front: the title is the table's again, the notification gone, the screen kept.
    ivan.page.evaluate("window.__setHidden(false)")
    pw_expect(ivan.page).to_have_title(title)
    ivan.page.wait_for_function(f"async () => ((await ({NOTIFICATIONS})()) || []).length === 0")
    ivan.page.wait_for_function("window.__seen.locks >= 2")
    ivan.shot(artifacts, "attention-back")
    assert ivan.errors == [] and maria.errors == []


def test_a_phone_that_refuses_sound_before_a_tap_offers_to_turn_it_on(
    driver: Playwright, crowd: Crowd, artifacts: Path
) -> None:
    """As iOS Safari and Chrome's autoplay policy do: no sound before the page was tapped.
    «Мария» opens the table again mid-hand (no tap on the new tab), her turn's sound is
    refused, and «Включить звук» lets the sounds play from its tap."""
    strict = driver.chromium.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, "--autoplay-policy=document-user-activation-required"],
    )
    try:
        ezh = crowd.add(DESKTOP, "Ёж")
        registered = crowd.add(PHONE, "Мария")  # her account, with money
        context = strict.new_context(viewport=PHONE, locale="ru-RU", has_touch=True, is_mobile=True)
        context.add_init_script(DEVICE)
        maria = Player(registered.name, context, context.new_page(), crowd.server.url)
        maria.watch()
        maria.page.goto(f"{maria.base}/login")
        maria.page.fill("input[name=name]", maria.name)
        maria.page.fill("input[name=password]", PASSWORD)
        maria.page.click("form button[type=submit]")
        maria.page.wait_for_url(f"{maria.base}/")
        table = Table([ezh, maria], ezh.new_table("Звук " + ezh.name, "classic", 3))
        table.seat_everyone()
        table.start()
        if maria.bar("Дал 10").count():
            table.do("Дал 10", maria)  # his turn first: hers comes on the new tab
        # The table in a new tab, watched only through CDP evaluations without a user
        # gesture: every Playwright evaluation and locator check counts as one (it would
        # activate the page and let its sound play).
        maria.page.close()
        maria.page = context.new_page()
        maria.watch()
        cdp = context.new_cdp_session(maria.page)
        maria.page.goto(f"{maria.base}/table/{table.id}")
        assert quietly(cdp, f"!!document.querySelector('.seat[data-seat=\"{maria.name}\"]')")
        assert quietly(cdp, "!navigator.userActivation.hasBeenActive")
        Table([ezh], table.id).do("Дал 10", ezh)  # her turn: its sound, and no tap yet
        assert quietly(cdp, "!document.querySelector('#sound-unlock').hidden")
        assert quietly(cdp, "document.querySelector('#sound-unlock').textContent") == (
            "Включить звук"
        )
        maria.shot(artifacts, "attention-sound-unlock")
        unlock = maria.page.locator("#sound-unlock")
        unlock.click()
        pw_expect(unlock).to_be_hidden()
        # From the tap on, the sounds play: the page's audio runs.
        maria.page.wait_for_function(
            "window.__seen.contexts.length > 0"
            " && window.__seen.contexts.every((c) => c.state === 'running')"
        )
        assert maria.errors == [] and ezh.errors == []
        context.close()
    finally:
        strict.close()
