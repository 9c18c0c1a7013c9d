"""The felt's layout in Chromium, from made-up states at every seat count
(tests/browser/felt.py): nothing a player must read is covered — at 360×740, 390×844 and
1280×800, for every seat count the game allows (classic 2–8, shaha36 2–6), a showdown seen
seated and as a spectator, and a turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.engine.games import GAME_PARAMS

from .conftest import DESKTOP
from .felt import NAMES, draw, playing_state, showdown_state
from .test_felt import SIZES

# Boxes of what a player reads on the felt, and which of them may not meet (tests below).
BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height }; };
  const seatOf = (el) => el.closest(".seat")?.dataset.seat ?? null;
  const cards = [...document.querySelectorAll(".seat-cards .card")].map((el) => {
    // The card's corner index (its rank and suit letter): the top-left of its face.
    const b = box(el);
    return { seat: seatOf(el), box: b, index: { x: b.x, y: b.y, w: b.w * 0.34, h: b.h * 0.3 } };
  });
  const all = (sel) => [...document.querySelectorAll(sel)]
    .map((el) => ({ seat: seatOf(el), box: box(el) }));
  return {
    cards,
    pot: box(document.querySelector(".pot")),
    avatars: all(".seat:not(.empty) .avatar"),
    plates: all(".seat .plate"),
    secs: all(".secs"),
    dealer: all(".mark.dealer"),
    mine: all(".my-cards .card"),
    count: all("[data-count]"),
    bar: all("#actions .act"),
    view: { w: innerWidth, h: innerHeight },
  };
}"""


def meet(a: dict[str, float], b: dict[str, float], slack: float = 1.0) -> bool:
    """Whether two boxes overlap by more than `slack` pixels each way."""
    return (
        a["x"] + slack < b["x"] + b["w"]
        and b["x"] + slack < a["x"] + a["w"]
        and a["y"] + slack < b["y"] + b["h"]
        and b["y"] + slack < a["y"] + a["h"]
    )


def overlaps(boxes: dict[str, Any]) -> list[str]:
    """What covers what a player must read (issue: cards over the pot, avatars and each
    other's index; the countdown under the dealer mark; the count over one's cards)."""
    found = []
    for c in boxes["cards"]:
        if meet(c["box"], boxes["pot"]):
            found.append(f"{c['seat']}'s card covers the pot")
        for a in boxes["avatars"] + boxes["plates"]:
            if a["seat"] != c["seat"] and meet(c["box"], a["box"]):
                found.append(f"{c['seat']}'s card covers {a['seat']}")
        for d in boxes["cards"]:
            if d["seat"] != c["seat"] and meet(c["box"], d["index"]):
                found.append(f"{c['seat']}'s card covers {d['seat']}'s index")
    for a in boxes["avatars"] + boxes["plates"]:
        for b in boxes["avatars"] + boxes["plates"]:
            if a["seat"] != b["seat"] and meet(a["box"], b["box"]):
                found.append(f"{a['seat']} and {b['seat']} meet")
    for s in boxes["secs"]:
        for d in boxes["dealer"]:
            if meet(s["box"], d["box"]):
                found.append("the countdown is behind the dealer mark")
    for c in boxes["count"]:
        for m in boxes["mine"]:
            if meet(c["box"], m["box"]):
                found.append("the count covers one's own cards")
    view = boxes["view"]
    for c in boxes["cards"] + boxes["avatars"] + boxes["plates"] + boxes["bar"]:
        b = c["box"]
        if (
            b["x"] < -1
            or b["y"] < -1
            or b["x"] + b["w"] > view["w"] + 1
            or b["y"] + b["h"] > view["h"] + 1
        ):
            found.append(f"{c['seat']} off the screen")
    return sorted(set(found))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_nothing_covers_what_a_player_reads(
    felt: Any, artifacts: Path, size: dict[str, int]
) -> None:
    page = felt(size)
    bad = []
    for game in ("classic", "shaha36"):
        seats = GAME_PARAMS[game]["seats"]  # the counts the game allows (C-1.1, S-1.2)
        assert seats.low is not None and seats.high is not None
        for n in range(seats.low, seats.high + 1):
            for kind, state in (
                ("showdown", showdown_state(game, n, me=NAMES[n - 1])),
                ("spectator", showdown_state(game, n)),
                ("turn", playing_state(game, n, me=NAMES[0])),
            ):
                draw(page, state)
                found = overlaps(page.evaluate(BOXES))
                if n in (3, 6, 8) or found:
                    page.screenshot(
                        path=str(
                            artifacts
                            / f"felt-{game}-{kind}-{n}-{size['width']}x{size['height']}.png"
                        )
                    )
                bad += [f"{game} {kind} {n} seats: {f}" for f in found]
    assert bad == [], "\n".join(bad)


SPREAD = """() => {
  const felt = document.querySelector("#felt").getBoundingClientRect();
  return [...document.querySelectorAll(".seat:not(.empty) .avatar")].map((el) => {
    const r = el.getBoundingClientRect();
    return [(r.left + r.width / 2 - felt.left) / felt.width,
            (r.top + r.height / 2 - felt.top) / felt.height];
  });
}"""


def test_free_seats_leave_the_felt_in_a_hand_and_players_spread_around_it(felt: Any) -> None:
    """Three at an eight-seat table: in a hand no «Свободно» plate; between hands they show.
    On the desktop, players sit all around the oval: both sides, and above and below its
    middle."""
    page = felt(DESKTOP)
    state = playing_state("classic", 3, me=NAMES[0])
    state["seats"] = state["seats"] + [None] * 5
    draw(page, state)
    assert page.locator(".seat.empty").count() == 0
    assert page.locator(".seat").count() == 3
    state["view"] = None
    draw(page, state)
    assert page.locator(".seat.empty").count() == 5
    for n in range(3, 9):
        draw(page, playing_state("classic", n, me=NAMES[0]))
        places = page.evaluate(SPREAD)
        xs, ys = [x for x, _ in places], [y for _, y in places]
        assert min(xs) < 0.3 and max(xs) > 0.7, (n, places)
        # Not bunched at the ends: from six players on, two above the middle and two below.
        least = 2 if n >= 6 else 1
        assert sum(y < 0.45 for y in ys) >= least and sum(y > 0.55 for y in ys) >= least, places
