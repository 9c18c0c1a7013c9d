"""The classic table in Chromium: three people sit, press «Готов» and play whole hands by
clicking the seed's buttons (docs/rules/ui.md): a look (C-4.11), a «Варить» vote that ends in a
Svara with a paid entry (C-5.4, C-7.3), a «Делить» vote (C-5.5), and a reload mid-hand (C-8.1)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from .conftest import DESKTOP, Crowd, Player, Table

# What a player clicks to get a hand over with, in order of preference.
# With three or more active players a bet ends only through looks (C-4.10a).
FINISH = [
    "Забился", "Вскрыться", "Смотреться", "Дал 10", "Дал 30", "Дал дальше", "Не входить",
    "Играть без темняшки",
]  # fmt: skip


def test_classic_look_cook_svara_split_reload(people: list[Player], artifacts: Path) -> None:
    anna, boris, _ = people
    table = Table(people, anna.new_table("Классика " + anna.name, "classic", 6))
    table.seat_everyone()
    table.start()
    # Only the legal actions, with the seed's words: the first player may pass or bet.
    first, _ = table.first_of(["Дал 10"])
    assert set(first.labels()) == {"Упал", "Прошёл", "Дал 10", "Дал 20", "Дал 30"}
    for p in people:
        if p is not first:
            assert p.labels() == []
    # Everyone sees the countdown ring on the seat whose turn it is (C-4.1: 30 s).
    for p in people:
        seat = p.page.locator(f'.seat[data-seat="{first.name}"]')
        expect(seat.locator(".ring circle")).to_have_count(1)
        assert 0 < int(seat.locator(".secs").inner_text()) <= 30
        expect(p.page.locator(".seat .ring")).to_have_count(1)

    # Hand 1: a bet, then a look (C-4.11): «Смотрят карты» for all, one of the two drops.
    table.do("Дал 10", first)
    for p in (anna, boris):  # the table in a hand, on a phone and on a desktop
        p.shot(artifacts, "classic-table")
    # docs/rules/ui.md: every touch target at least 44 px, and the phone's table fits without
    # scrolling.
    (acting,) = [p for p in people if p.labels()]
    for p in (anna, acting):
        small = p.page.evaluate(
            """() => [...document.querySelectorAll("button, a, .card.tap, input")]
                 .filter((e) => e.offsetParent !== null)
                 .map((e) => [e.outerHTML.slice(0, 60), e.getBoundingClientRect()])
                 .filter(([, r]) => r.width < 44 || r.height < 44)"""
        )
        assert small == [], small
    scroll = anna.page.evaluate("[document.documentElement.scrollHeight, innerHeight]")
    assert scroll[0] <= scroll[1]
    looker = table.do("Смотреться")
    assert any(p.page.locator(".banner.look").count() for p in people)
    for p in people:
        expect(p.page.locator(".banner.look .banner-text")).to_have_text("Смотрят карты")
    anna.shot(artifacts, "classic-look")
    expect(looker.page.locator(".last3 li").last).to_contain_text(f"{looker.name} и ")
    expect(looker.page.locator(".last3 li").last).to_contain_text(" смотрятся: ")
    table.play_until("Готов", FINISH)
    table.over()
    history = anna.page.locator("#history-list")
    anna.page.click('[data-panel="history-panel"]')
    # The look is in the history (the rest of the hand, FINISH's choices, may look again).
    expect(history.locator("li", has_text=" смотрятся: ").first).to_contain_text(
        f"{looker.name} и "
    )
    anna.page.click("#history-panel [data-close]")

    # The first «Готов» starts the gathering timer (C-1.3): a ring on everyone who has not
    # answered yet, «готов» on who has.
    table.do("Готов", anna)
    for p in people:
        expect(p.page.locator(f'.seat[data-seat="{anna.name}"] .mark.ready')).to_have_text("готов")
        expect(p.page.locator(".seat .ring")).to_have_count(2)
        expect(p.page.locator(f'.seat[data-seat="{anna.name}"] .ring')).to_have_count(0)

    # Hand 2: a bet, a fold, a call; the closing word proposes «Варить» (C-5.1), the other
    # agrees, the pot goes to a Svara (C-5.4) and the folded player buys in (C-7.3).
    table.start(answered=(anna,))
    opener = table.do("Дал 10")
    folder = table.do("Упал")
    table.do("Дал 10")
    closer = table.do("Варить", opener)
    partner = next(p for p in people if p not in (closer, folder))
    expect(partner.page.locator(".dialog.vote h2")).to_have_text(f"{closer.name} предлагает варить")
    table.do("Согласиться", partner)
    for p in people:
        expect(p.page.locator(".banner.svara .banner-text")).to_have_text("СВАРА!")
    entry = folder.page.locator(".dialog.svara-entry")
    expect(entry).to_be_visible()
    folder.shot(artifacts, "classic-svara-entry")
    fee = int(entry.locator(".fee").inner_text().split()[1])
    assert fee == 25  # C-7.3: ceil(pot 50 / 2 cooking players)
    expect(folder.bar("Войти в свару").locator(".price")).to_have_text(" · 25 ₽")
    table.do("Войти в свару", folder)
    for p in people:
        expect(p.page.locator(".round")).to_have_text("Свара 1")
        expect(p.page.locator(".my-cards .card")).to_have_count(3)

    # In the Svara all three answer 10, then the closing word proposes «Делить» (C-5.5).
    table.do("Дал 10")
    table.do("Дал 10")
    table.do("Дал 10")
    splitter, _ = table.first_of(["Делить"])
    table.do("Делить", splitter)
    for _ in range(2):
        table.do("Согласиться")
    for p in people:
        expect(p.page.locator(".banner.split .banner-text")).to_have_text("Игроки поделили банк")
    table.over()
    boris.shot(artifacts, "classic-split")

    # Hand 3: a reload in the middle of the hand keeps the seat and the cards (C-8.1).
    table.start()
    table.do("Дал 10")
    (waiting,) = [p for p in people if p.labels()]
    cards = waiting.page.locator(".my-cards .card").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )
    labels = sorted(waiting.labels())
    waiting.page.reload()
    expect(waiting.page.locator(".my-cards .card")).to_have_count(3)
    expect(waiting.page.locator(".my-cards .card.up")).to_have_count(3)
    assert (
        waiting.page.locator(".my-cards .card").evaluate_all("els => els.map(e => e.dataset.card)")
        == cards
    )
    expect(waiting.page.locator("#actions .act")).to_have_count(len(labels))
    assert sorted(waiting.labels()) == labels
    table.do("Упал", waiting)
    table.play_until("Готов", ["Упал"])
    table.over()
    for p in people:
        assert p.errors == [], p.errors


def test_classic_dark_and_the_privileged_look(
    people: list[Player], crowd: Crowd, artifacts: Path
) -> None:
    """C-1.5 … C-1.6: with four players the candidate may press «Темнить · 15 ₽»; the dark
    opens the level at 30 (C-4.2), hides his own cards until his first decision (C-4.19),
    nobody looks before it (C-4.16), and he is offered «Смотреться · 15 ₽» (C-4.17)."""
    gleb = crowd.add(DESKTOP, "gleb")
    players = [*people, gleb]
    table = Table(players, people[0].new_table("Темняшка " + gleb.name, "classic", 4))
    table.seat_everyone()
    (dark,) = [p for p in players if p.bar("Темнить").count()]
    expect(dark.bar("Темнить").locator(".price")).to_have_text(" · 15 ₽")
    table.start(dark=dark, dark_label="Темнить")
    for p in players:
        expect(p.page.locator(f'.seat[data-seat="{dark.name}"] .mark.dark')).to_be_visible()
        expect(p.page.locator(".level")).to_have_text("Ставка 30 ₽")
    expect(dark.page.locator(".my-cards .card.up")).to_have_count(0)
    # The others answer 30 until the word reaches the dark player; nobody may look yet.
    for _ in range(3):
        (who,) = [p for p in players if p.labels()]
        if who is dark:
            break
        assert "Смотреться" not in who.labels()
        table.do("Дал 30", who)
    assert set(dark.labels()) == {"Упал", "Дал 30", "Смотреться"}
    expect(dark.bar("Смотреться").locator(".price")).to_have_text(" · 15 ₽")
    dark.shot(artifacts, "classic-dark-look")
    table.do("Смотреться", dark)
    for p in players:
        expect(p.page.locator(".banner.look .banner-text")).to_have_text("Смотрят карты")
    # After his first decision he sees his own cards (C-4.19), won or lost.
    expect(dark.page.locator(".my-cards .card.up")).to_have_count(3)
    table.play_until("Готов", FINISH)
    table.over()
    for p in players:
        assert p.errors == [], p.errors


FLIGHTS = """() => {
  // Every chip that flies from now on: where it starts and where its animation ends.
  globalThis.flights = [];
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) {
      if (!node.classList?.contains("flying")) continue;
      const start = node.getBoundingClientRect();
      const end = node.getAnimations()[0].effect.getKeyframes().at(-1).transform;
      const [dx, dy] = end.match(/-?[\\d.]+px/g).map(parseFloat);
      flights.push({ x: start.x + start.width / 2 + dx, y: start.y + start.height / 2 + dy });
    }
  }).observe(document.body, { childList: true });
}"""

LANDED = """([name, count]) => {
  const box = (el) => el.getBoundingClientRect();
  const inside = (p, r) => p.x >= r.left && p.x <= r.right && p.y >= r.top && p.y <= r.bottom;
  const seat = box(document.querySelector(`.seat[data-seat="${name}"]`));
  const pot = box(document.querySelector("[data-pot]"));
  return flights.length >= count &&
    flights.filter((p) => inside(p, pot)).length >= 1 &&
    flights.filter((p) => inside(p, seat)).length >= 5;
}"""


def test_chips_fly_to_the_pot_and_then_to_the_winner(crowd: Crowd) -> None:
    """docs/rules/ui.md: a bet's chips fly from the seat to «Банк», and at the end of the hand
    the pot's chips fly to the winner's seat (C-6.3): on every page, the winner's own and the
    other's."""
    ivan, maria = crowd.add(DESKTOP, "Иван"), crowd.add(DESKTOP, "Мария")
    table = Table([ivan, maria], ivan.new_table("Фишки " + ivan.name, "classic", 2))
    table.seat_everyone()
    table.start()
    for p in (ivan, maria):
        p.page.evaluate(FLIGHTS)
    bettor = table.do("Дал 10")
    table.do("Упал")
    table.over()
    for p in (ivan, maria):
        p.page.wait_for_function(LANDED, arg=[bettor.name, 6])
