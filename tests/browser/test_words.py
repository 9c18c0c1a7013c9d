"""Every event of every game in the players' words, in each language of the page.

Each hand file of tests/hands/ is replayed through its engine; at every step every player's
own view and the spectator's are drawn by static/js/render.js in Chromium: the history, the
last three decisions and the bubbles by the seats. No line may show a raw key
(«classic.cook»), `undefined`, a level of 0 («КОЛЛ 0»), a latin word of the engine on a
Russian or Bulgarian page, or need a key its language's dictionary lacks."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser

from app.engine.hand import Hand
from app.engine.handfile import parse, start
from tests.server.conftest import Server

from .test_render import replayed

HANDS = Path(__file__).resolve().parents[1] / "hands"
LANGS = ("ru", "en", "bg")

RENDER = """async ([cases, langs]) => {
  const { renderFelt, renderHistory, bannerFor } = await import("/static/js/render.js");
  const { DICTS, translate } = await import("/static/js/i18n.js");
  const out = [];
  for (const lang of langs) {
    const missing = new Set();
    const t = (key, params) => {
      if (!(key in DICTS[lang])) missing.add(key);
      return translate(lang, key, params);
    };
    for (const { view, me } of cases) {
      const seats = view.players.map((p) => ({ name: p.name, balance: p.balance }));
      const state = { view, me, seats, queue: 0, between: [], deadlines: {}, phase: "playing",
                      table: { name: "Стол", game: view.game } };
      const ctx = { t, lang, settings: {}, draft: {}, now: 0 };
      const doc = new DOMParser().parseFromString(
        renderFelt(state, ctx) + renderHistory(state, ctx), "text/html");
      const lines = [...doc.querySelectorAll(".bubble, .last3 li, .history-list li")]
        .map((el) => el.textContent);
      for (const e of view.events) {
        const banner = bannerFor(e, t, view);
        if (banner) lines.push(banner.text, ...(banner.detail ? [banner.detail] : []));
      }
      out.push({ lang, lines, missing: [...missing] });
    }
  }
  return out;
}"""


def every_view() -> list[dict[str, Any]]:
    """Each player's view and the spectator's at every step of every hand file that starts."""
    return [
        {"file": file, "step": step, "me": who, "view": hand.view(who)}
        for file, step, hand in replayed()
        for who in [None, *(p["name"] for p in hand.view(None)["players"])]
    ]


RAW = re.compile(r"undefined|null|NaN|\{|\}|\b[a-z]+[._][a-z_]+\b|\b0\s₽|(?<![\d\s])\s0$")
CARD = re.compile(r"(10|[2-9JQKA])[♠♥♦♣]|Jk")


def test_every_event_has_words_in_every_language(web: Server, chromium: Browser) -> None:
    cases = every_view()
    kinds = {(c["view"]["game"], e["kind"]) for c in cases for e in c["view"]["events"]}
    assert len(kinds) > 60
    page = chromium.new_page()
    page.goto(web.url + "/install")
    drawn = page.evaluate(RENDER, [[{"view": c["view"], "me": c["me"]} for c in cases], LANGS])
    page.close()
    assert len(drawn) == len(cases) * len(LANGS)
    bad: set[str] = set()
    for i, out in enumerate(drawn):
        case = cases[i % len(cases)]
        where = f"{out['lang']} {case['file']} step {case['step']} ({case['me']})"
        names = sorted((p["name"] for p in case["view"]["players"]), key=len, reverse=True)
        for key in out["missing"]:
            bad.add(f"{where}: no {key!r}")
        for line in out["lines"]:
            if not line.strip() or RAW.search(line):
                bad.add(f"{where}: {line!r}")
            if out["lang"] != "en":
                bare = CARD.sub("", line)
                for name in names:
                    bare = bare.replace(name, "")
                if re.search(r"[A-Za-z]", bare):
                    bad.add(f"{where}: latin in {line!r}")
    assert sorted(bad)[:40] == []


def played(path: Path, until: str | None = None) -> Hand:
    """The hand of a hand file, played to its end or to its first event of kind `until`."""
    hf = parse(json.loads(path.read_text(encoding="utf-8")))
    hand = start(hf)
    for action in hf.actions:
        hand.act(action)
        if until and any(e["kind"] == until for e in hand.view(None)["events"]):
            break
    return hand


def test_a_look_is_written_for_everyone(web: Server, chromium: Browser) -> None:
    """C-4.11: the look's result is in everyone's history, and the loser's bubble says he is
    out after the look, not his last bet (while the hand goes on: a finished hand shows its
    showdown, not bubbles)."""
    hand = played(HANDS / "classic" / "c4_11_look.json", until="look")
    assert not hand.finished
    look = next(e for e in hand.view(None)["events"] if e["kind"] == "look")
    views = [hand.view(who) for who in (None, look["player"], look["target"])]
    page = chromium.new_page()
    page.goto(web.url + "/install")
    drawn = page.evaluate(RENDER, [[{"view": v, "me": None} for v in views], ["ru"]])
    page.close()
    for out in drawn:
        # Written for any name: no case ending to decline (not «смотрится с Мария»).
        words = (
            f"{look['player']} и {look['target']} смотрятся: после просмотра падает {look['loser']}"
        )
        assert any(line.startswith(words) for line in out["lines"]), out["lines"]
        assert "Упал после просмотра" in out["lines"], out["lines"]


def test_a_tie_in_a_svara_says_the_next_svara(web: Server, chromium: Browser) -> None:
    """S-7.5: a tie in a Svara deals the next one at once; history and banner say so."""
    hand = played(HANDS / "shaha36" / "svara-tie-again.json")
    page = chromium.new_page()
    page.goto(web.url + "/install")
    drawn = page.evaluate(RENDER, [[{"view": hand.view("A"), "me": "A"}], list(LANGS)])
    page.close()
    words = {
        "ru": "снова ничья — 2-я свара подряд",
        "en": "a tie again — Svara 2 in a row",
        "bg": "пак равенство — 2-а свара подред",
    }
    for out in drawn:
        said = [line for line in out["lines"] if words[out["lang"]] in line]
        assert len(said) == 2, out["lines"]  # the history's line and the banner's detail


SENTENCES = """async (lang) => {
  const { bannerFor, eventText } = await import("/static/js/render.js");
  const { askLine } = await import("/static/js/asks.js");
  const { hostLine } = await import("/static/js/host.js");
  const { money, translator } = await import("/static/js/i18n.js");
  const t = translator(lang);
  const award = { kind: "award", player: "Ёж", amount: 3005 };
  return [
    bannerFor(award, t, { game: "classic", players: [], events: [award] }).text,
    eventText("classic", award, t),
    eventText("classic", { kind: "ante", amount: 1000 }, t),
    askLine(t, { name: "Мария", amount: 1000 }),
    t("asks.approved", { by: "Иван", amount: money(1000) }),  // as asks.js fills it
    hostLine({ kind: "host", do: "bots_fill", player: "Иван" }, t),
    hostLine({ kind: "host", do: "rules", player: "Иван", rules: { ante: 2000 } }, t),
  ];
}"""


def test_amounts_and_a_players_deeds_in_the_pages_words(web: Server, chromium: Browser) -> None:
    """docs/i18n.md: every amount a sentence says is `money` («3 005 ₽» as the felt's
    «+3 005 ₽», not «3005 ₽»), and what a player or the host does is said in no gendered past
    («Иван сажает ботов», not «посадил»)."""
    page = chromium.new_page()
    page.goto(web.url + "/install")
    said = {lang: page.evaluate(SENTENCES, lang) for lang in LANGS}
    page.close()
    nb = "\u00a0"  # `money`'s thousands apart (ru-RU) and before «₽»: no line breaks there
    assert said["ru"] == [
        f"Ёж забирает 3{nb}005{nb}₽",
        f"Ёж забирает 3{nb}005{nb}₽",
        f"анте 1{nb}000{nb}₽",
        f"Мария просит 1{nb}000{nb}₽",
        f"Вам зачислено 1{nb}000{nb}₽ (Иван)",
        "Иван сажает ботов",
        f"Иван меняет правила: анте 2{nb}000{nb}₽",
    ]
    for lang in ("en", "bg"):
        assert all(re.search(r"\d{4}", line) is None for line in said[lang]), said[lang]
        assert f"3{nb}005{nb}₽" in said[lang][0] and f"1{nb}000{nb}₽" in said[lang][3], said[lang]
