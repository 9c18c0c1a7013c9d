"""The action bar as a pure function of the view, over every state of every hand file.

Each hand file of tests/hands/ is replayed through its engine; at every step, every awaited
player's own view is drawn by static/js/render.js in Chromium. The buttons must be exactly
the view's legal actions (shaha36's look is the tap on a card, S-1.3), each with its amount
and price, in the words of docs/rules/ui.md — whatever state the files reach, including ones a
clicking test cannot steer to (a closing turn, a dark continuation, a buy-in)."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser

from app.engine.cards import parse_card
from app.engine.games import SCORERS
from app.engine.hand import Hand, RuleError
from app.engine.handfile import HandFileError, parse, start
from tests.server.conftest import Server

HANDS = Path(__file__).resolve().parents[1] / "hands"

# docs/rules/ui.md's words per game (N: an amount).
WORDS = {
    "classic": r"Прошёл|Дал \d+|Упал|Вскрыться|Забился|Смотреться|Дал дальше( \d+)?|Варить|"
    r"Делить|Согласиться|Отказаться|Войти в свару|Не входить|Продолжить темняшку|"
    r"Играть без темняшки",
    "shaha36": r"Пропустить|Поставить|Уравнять|Повысить|Скинуть|Втёмную|Показать|Варить|"
    r"Делить|Вариться|Не вариться",
    "svara32": r"ПАС|КОЛЛ|РЕЙЗ|Смотреть|Войти в свару|Не входить|Тёмный|ЧЕК",
}

RENDER = """async (cases) => {
  const { renderActions, renderDialog } = await import("/static/js/render.js");
  const { translator } = await import("/static/js/i18n.js");
  const t = translator("ru");
  return cases.map(({ view, me }) => {
    const state = { view, me, seats: [], between: [], table: { game: view.game } };
    const ctx = { t, lang: "ru", settings: {}, draft: {} };
    const doc = new DOMParser().parseFromString(
      renderActions(state, ctx) + renderDialog(state, ctx), "text/html");
    return [...doc.querySelectorAll("button[data-do]")].map((b) => ({
      do: b.dataset.do,
      to: b.dataset.to === undefined ? null : Number(b.dataset.to),
      deal: b.dataset.deal ?? null,
      ranged: Boolean(b.dataset.ranged),
      label: b.querySelector(".label").textContent,
      price: b.querySelector(".price")?.textContent ?? "",
    }));
  });
}"""


def replayed() -> Iterator[tuple[str, int, Hand]]:
    """Every step of every hand file that starts: its file, the step, the hand then (acted
    on after it is yielded)."""
    for path in sorted(HANDS.glob("*/*.json")):
        try:
            hf = parse(json.loads(path.read_text(encoding="utf-8")))
            hand = start(hf)
        except (HandFileError, RuleError):
            continue  # files about a hand that must not start
        for step in range(len(hf.actions) + 1):
            yield f"{path.parent.name}/{path.name}", step, hand
            if step == len(hf.actions) or hand.finished:
                break
            try:
                hand.act(hf.actions[step])
            except RuleError:
                break  # files whose point is a refused action


def awaited_views() -> list[dict[str, Any]]:
    """Every awaited player's view at every step of every hand file that starts."""
    return [
        {"file": file, "step": step, "me": player, "view": hand.view(player)}
        for file, step, hand in replayed()
        for player in hand.awaiting()
    ]


def test_every_button_is_a_legal_action_in_the_seed_words(web: Server, chromium: Browser) -> None:
    cases = awaited_views()
    assert len(cases) > 300
    assert {c["view"]["game"] for c in cases} == set(WORDS)
    page = chromium.new_page()
    page.goto(web.url + "/install")
    drawn = page.evaluate(RENDER, [{"view": c["view"], "me": c["me"]} for c in cases])
    page.close()
    seen: Counter[str] = Counter()
    for case, buttons in zip(cases, drawn, strict=True):
        view = case["view"]
        where = f"{case['file']} step {case['step']} ({case['me']})"
        legal = [a for a in view["legal"] if not (view["game"] == "shaha36" and a["do"] == "look")]
        assert Counter(b["do"] for b in buttons) == Counter(a["do"] for a in legal), where
        for b in buttons:
            assert re.fullmatch(WORDS[view["game"]], b["label"]), (where, b)
            seen[b["label"].split(" ")[0]] += 1
            if b["ranged"]:
                continue
            matches = [
                a
                for a in legal
                if a["do"] == b["do"]
                and a.get("to", a.get("min_to")) == b["to"]
                and a.get("deal") == b["deal"]
            ]
            assert matches, (where, b, legal)
            price = matches[0].get("price", 0)
            shown = b["label"] + b["price"]
            if price:
                digits = re.sub(r"(?<=\d)\u00a0(?=\d)", "", shown)  # «1 000» → «1000»
                assert re.search(rf"\b{price}(\u00a0₽)?$", digits), (where, b)
            else:
                assert b["price"] == "", (where, b)
    # The files reach the closing turn, the votes, the Svara entries, the dark continuation
    # (C-7.5), shaha36's showdown and buy-in, and svara32's traditional options too.
    for word in (
        "Забился", "Дал", "Варить", "Делить", "Согласиться", "Отказаться", "Войти", "Смотреться",
        "Продолжить", "Играть", "Втёмную", "Показать", "Вариться", "Тёмный", "ЧЕК", "Смотреть",
    ):  # fmt: skip
        assert seen[word], word


def test_the_count_reads_the_engines_scoring_table(web: Server, chromium: Browser) -> None:
    """C-3.9: count.js scores a hand with /scores/<game>.json; for every three-card hand of
    every deck, in a shuffled order of its cards, it says what the engine says."""
    page = chromium.new_page()
    page.goto(web.url + "/install")
    for game, scorer in SCORERS.items():
        hands = [[str(c) for c in reversed(h)] for h in combinations(scorer.deck, 3)]
        got = page.evaluate(
            """async ([game, hands]) => {
              const { loadScorer } = await import("/static/js/count.js");
              const score = await loadScorer(game);
              return hands.map((h) => score(h));
            }""",
            [game, hands],
        )
        for cards, mine in zip(hands, got, strict=True):
            want = scorer.score([parse_card(c) for c in cards])
            assert mine["absolute"] == want.absolute, cards
            assert mine["points"] == want.points, cards
            assert mine["label"] == (None if want.absolute else want.label), cards
    page.close()
