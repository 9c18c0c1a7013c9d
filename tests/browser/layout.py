"""What a page must hold, checked in the page itself (tests/browser/test_layout.py): no text
on text, no text under another element, no text cut without an ellipsis, no sideways scroll.

`problems(page)` returns one line per fault, each naming the texts involved, so a failing
test says what to fix. What is read: every visible element with text of its own (its text
nodes' boxes, line by line), and every face-up card (its corner index). Modal surfaces (a
dialog, a panel, the opaque toast of a refusal) cover the page behind them by design: what
lies under one is not checked, what is on one is.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

CHECK = (Path(__file__).parent / "layout_check.js").read_text(encoding="utf-8")


STILL = """() => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync("*, *::before, *::after { animation-play-state: paused !important;" +
    " animation-delay: -1s !important; transition: none !important; }");
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}"""


def still(page: Page) -> None:
    """Animations held a moment after they start (a banner at full strength, cards dealt):
    the check reads the settled page."""
    page.evaluate(STILL)


def problems(page: Page) -> list[str]:
    """Every fault of the page as drawn now (see the module's docstring)."""
    result: list[str] = page.evaluate(CHECK)
    return result
