"""A layout that holds: every state of every game at every phone and laptop size, with no text
on text, no text under another element, no text cut without an ellipsis, no sideways scroll
(tests/browser/layout.py says how each is told).

The states come from a real `svara serve`: players at real sockets (tests/server/tablekit.py)
play hands at a table of each game, and every `table:state` each of them received is kept.
The state a test needs is picked from those (the viewer's turn with the others' bubbles, the
amount panel, turning cards, the vote, the Svara entry, the dark choice, the showdown, the
winner's banner, the next gathering, the queue, a turn let run out, every seat taken, and
every seat taken beside the tallest action bar, in classic also with the most levels a variant
may have) and drawn into the table page by
static/js/protocol.js and render.js as table.js draws it (its banner from the state's news).
Where random deals make a state a matter of luck (a tie: shaha36's vote, S-7.1, and the Svara
entry of shaha36 and svara32, S-7.3, B-5.2), the recorded turn of that game is given the
legal actions of that moment, so the dialog is drawn from a real state all the same. The
buy-in dialog, the open chat, the voice sheet and the lobby are the real pages, driven by
clicks; so is the banner that must be gone before the next deal's cards arrive.

One state at one size: `pytest tests/browser/test_layout.py -k "shaha36 and vote and 390"`
(ids are `<game>-<state>-<width>`; `full` is every seat taken: eight in classic, six in
shaha36 and svara32). Screenshots of each state at 390×844 are left in
test-artifacts/browser/layout-*.png.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import expect as pw_expect
from sqlmodel import select

from app.engine.variants import MOST_ITEMS
from app.lobby.service import create_table
from app.models import User
from tests.server.conftest import Server, unique_name
from tests.server.tablekit import Player as SocketPlayer
from tests.server.tablekit import database, fund_house, grant, new_table

from .conftest import Crowd
from .felt import open_felt
from .layout import problems, still
from .test_languages import choose_language

SIZES = [(360, 740), (390, 844), (412, 915), (1280, 800)]
SHOT = (390, 844)
# Russian at every size; English and Bulgarian (longer words: «Пропусни», «Check», «Вдигни»)
# at the narrowest phone, the commonest one and the laptop, so the run grows by a half and
# a quarter rather than threefold.
LANGS = {"ru": SIZES, "en": [(360, 740), SHOT, (1280, 800)], "bg": [(360, 740), SHOT, (1280, 800)]}
LABELS = {"ru": "Русский", "en": "English", "bg": "Български"}
NAMES = ["Иван", "Ёж", "Мария", "Đorđe", "Светла", "Ким", "Александра", "ОЛЕГ", "Пётр"]

STATES = {
    "classic": ["turn", "look", "vote", "svara", "dark", "showdown", "win", "gathering"],
    "shaha36": ["turn", "raise", "look", "vote", "svara", "dark", "showdown", "win", "gathering"],
    "svara32": ["turn", "raise", "look", "svara", "dark", "showdown", "win", "gathering"],
}
CROWDED = ["queue", "full", "full-bar", "timeout", "bots", "bots-between"]
# Classic's longest bar of all: the most levels a variant may have (MOST_ITEMS, docs/rules.md,
# C-4.2), so the closing turn offers «Дал дальше» at each of them beside «Упал» and both
# proposals (C-4.10a, C-5.1).
OWN = {"classic": ["full-levels"], "shaha36": [], "svara32": []}
MOST_LEVELS = ",".join(str(10 * (n + 1)) for n in range(MOST_ITEMS))
FULL = {"classic": 8, "shaha36": 6, "svara32": 6}  # the most seats each game allows
READY = {"classic": "ready", "shaha36": "ready", "svara32": "ready"}


# --- the real table: hands played at sockets, every state kept -------------------------------
def hand_players(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in (state.get("hand") or {}).get("players", [])}


def choose(game: str, me: str, state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A decision that keeps hands going to their showdowns: a look at one's cards first
    (S-1.3, B-4.3), rarely a fold, a proposal and a Svara entry when offered."""
    legal = state["hand"]["legal"]
    dos = {a["do"]: a for a in legal}
    mine = hand_players(state).get(me, {})
    if game != "classic" and "look" in dos and None in (mine.get("cards") or [None]):
        return {"do": "look"}
    weights = {"fold": 0.3, "muck": 0.3, "dark": 1.5, "look": 1.0, "propose": 2.0}
    weights |= {"agree": 6.0, "join": 6.0, "cook": 3.0, "split": 1.0, "dark_on": 3.0}
    options = [a for a in legal if not (a["do"] == "look" and game != "classic")] or legal
    pick = dict(rng.choices(options, [weights.get(a["do"], 1.0) for a in options])[0])
    if pick.get("to") is None and pick.get("min_to") is not None:
        pick["to"] = pick["min_to"]
    return {k: pick[k] for k in ("do", "to", "deal") if pick.get(k) is not None}


def frugal(game: str, me: str, state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A hand that reaches classic's longest bar: the first bet is the lowest level, players
    fold until three are left and the three call it, so the closing turn comes at the lowest
    level with «Дал дальше» at every level, «Смотреться», «Упал» and both proposals (C-4.10a,
    C-5.1: seven buttons). Its holder folds, and the last two lock, so the hand ends."""
    legal = state["hand"]["legal"]
    dos = {a["do"] for a in legal}
    if "give_on" in dos:
        return {"do": "lock"} if "lock" in dos else {"do": "fold"}
    bets = sorted(a["to"] for a in legal if a["do"] == "bet")
    active = sum(1 for p in state["hand"]["players"] if p["state"] == "active")
    if "fold" in dos and state["hand"]["level"] is not None and active > 3:
        return {"do": "fold"}
    if bets:
        return {"do": "bet", "to": bets[0]}
    return choose(game, me, state, rng)


def play(
    players: list[SocketPlayer],
    game: str,
    hands: int,
    rng: random.Random,
    chooser: Callable[[str, str, dict[str, Any], random.Random], dict[str, Any]] = choose,
) -> None:
    """`hands` hands: everyone answers the gathering (one in four «dark» where offered), then
    each decision (`chooser`'s) is sent by whoever the hand waits for."""
    for n in range(hands):
        for p in players:
            p.drain()
            can = p.state["you"]["can"]
            word = "dark" if "dark" in can and n % 3 == 1 else "ready"
            assert p.call(f"table:{word}")["ok"], p.state["you"]
        first = players[0]
        first.until(lambda s: s["phase"] == "playing")
        hand_id = first.hand["id"]  # type: ignore[index]
        moved = lambda s, h=hand_id: (  # noqa: E731
            s["phase"] != "playing" or s["hand"]["id"] != h or bool(s["hand"]["awaiting"])
        )
        for _ in range(300):
            first.until(moved)
            if first.state["phase"] != "playing" or first.hand["id"] != hand_id:  # type: ignore[index]
                break
            name = first.hand["awaiting"][0]  # type: ignore[index]
            actor = next((p for p in players if p.name == name), None)
            if actor is None:  # a bot: the server answers for it (app/bots/)
                first.until(lambda s, v=first.state["version"]: s["version"] > v)
                continue
            actor.until(lambda s, v=first.state["version"]: s["version"] >= v)
            if actor.state["phase"] != "playing" or not actor.hand["legal"]:  # type: ignore[index]
                first.until(lambda s, v=first.state["version"]: s["version"] > v)
                continue
            reply = actor.act(**chooser(game, actor.name, actor.state, rng))
            if reply.get("ok"):
                actor.until(lambda s, v=actor.state["version"]: s["version"] > v)
            else:
                actor.event("error")
        for p in players:
            p.until(lambda s: s["phase"] != "playing")


def seated(
    server: Server, game: str, seats: int, count: int, **rules: Any
) -> tuple[int, list[SocketPlayer]]:
    table = new_table(server, game, seats=seats, **rules)
    players = [SocketPlayer(server, table, unique_name(NAMES[i])) for i in range(count)]
    for p in players:
        grant(server, p.name, 5000)
        p.join()
        reply = p.call("table:sit", **({} if game == "classic" else {"stack": 400}))
        assert reply.get("ok"), reply
    for p in players:
        p.until(lambda s: len([x for x in s["seats"] if x]) == min(count, seats))
    return table, players


def seated_at(state: dict[str, Any], name: str) -> bool:
    """Whether `name` holds a seat in this table state."""
    return any(x and x["name"] == name for x in state["seats"])


def broke(state: dict[str, Any], name: str) -> bool:
    """Whether `name`'s seat no longer pays the ante (C-1.8, S-1.5): the bots do not answer
    a gathering beside him (docs/rules.md, «Bots»)."""
    return any(
        x and x["name"] == name and x["money"] < state["info"]["ante"] for x in state["seats"]
    )


def messages(players: list[SocketPlayer]) -> Iterator[dict[str, Any]]:
    for p in players:
        p.drain()
        for name, data in p.received:
            if name == "table:state":
                yield data


def legal_of(msg: dict[str, Any]) -> dict[str, dict[str, Any]]:
    hand = msg.get("hand") or {}
    if msg["phase"] != "playing":
        return {}
    return {a["do"]: a for a in hand.get("legal", [])}


# What the table does in a player's name, not his decision: svara32's ante is one event per
# player (B-1.2), before anyone speaks; so are his cards, his return and his win; a hand
# shown by itself (S-6.2) says nothing either.
NOT_DECIDED = {"ante", "cards", "return", "win"}
# The states picked for the others' decisions, and how many bubbles each must show.
BUBBLES = {"turn": 2, "full": 3, "full-bar": 3, "full-levels": 3, "bots": 2}


def decisions_by_others(msg: dict[str, Any]) -> int:
    """How many others have a bubble: players with a decision of their own in this hand."""
    me = msg["you"]["name"]
    return len(
        {
            e["player"]
            for e in msg["hand"]["events"]
            if e.get("player") not in (None, me)
            and e["kind"] not in NOT_DECIDED
            and not e.get("by_itself")
        }
    )


def pick(game: str, state: str, msgs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The most telling recorded message of `state` (the last of several: more bubbles)."""
    me = lambda m: m["you"]["name"]  # noqa: E731
    mine = lambda m: hand_players(m).get(me(m), {})  # noqa: E731
    news = lambda m, kinds: any(e["kind"] in kinds for e in m.get("news", []))  # noqa: E731
    tests: dict[str, Callable[[dict[str, Any]], bool]] = {
        "turn": lambda m: (
            me(m) in (m["hand"] or {}).get("awaiting", [])
            and bool(legal_of(m))
            and not {"agree", "join", "dark_on", "cook", "split"} & set(legal_of(m))
            and decisions_by_others(m) >= 2
        ),
        # every seat taken beside the tallest bar: seven buttons in classic, the amount panel
        # in the others
        "full-bar": lambda m: (
            tests["full"](m)
            and (len(m["hand"]["legal"]) >= 7 if game == "classic" else tests["raise"](m))
        ),
        "full-levels": lambda m: tests["full"](m) and len(m["hand"]["legal"]) >= MOST_ITEMS + 3,
        "raise": lambda m: any(
            a.get("min_to") is not None and a["min_to"] != a["max_to"] for a in legal_of(m).values()
        ),
        "look": lambda m: (
            news(m, {"look", "look_result"})
            if game == "classic"
            else "look" in legal_of(m) and (mine(m).get("cards") or [None]).count(None) == 1
        ),
        "vote": lambda m: bool({"agree", "cook", "split"} & set(legal_of(m))),
        "svara": lambda m: "join" in legal_of(m),
        "dark": lambda m: (
            "dark" in m["you"]["can"] and m["phase"] != "playing"
            if game != "shaha36"
            else "dark" in legal_of(m)
        ),
        "showdown": lambda m: (
            bool(m["hand"])
            and m["hand"]["phase"] == "finished"
            and sum(1 for p in m["hand"]["players"] if p.get("cards") and all(p["cards"])) >= 3
        ),
        "win": lambda m: news(m, {"award", "win"}),
        "gathering": lambda m: (
            m["phase"] != "playing"
            and bool(m["hand"])
            and bool(m.get("gathering"))
            and any(s and s.get("answer") for s in m["seats"])
        ),
        "queue": lambda m: bool(m.get("queue")) and bool(m["hand"]),
        "timeout": lambda m: (
            bool(m["hand"])
            and m["phase"] == "playing"
            and bool(m["hand"]["awaiting"])
            and any(timed_out(e) for e in m["hand"]["events"])
        ),
        "full": lambda m: (
            sum(1 for s in m["seats"] if s) == FULL[game]
            and me(m) in (m["hand"] or {}).get("awaiting", [])
            and decisions_by_others(m) >= 3
        ),
        "bots": lambda m: (
            sum(1 for s in m["seats"] if s and s["bot"]) >= 2
            and me(m) in (m["hand"] or {}).get("awaiting", [])
            and decisions_by_others(m) >= 2
        ),
        "bots-between": lambda m: (
            m["phase"] != "playing"
            and bool(m["hand"])
            and any(s and s["bot"] and s.get("answer") for s in m["seats"])
        ),
    }
    found = [m for m in msgs if m.get("hand") is not None or state == "dark"]
    found = [m for m in found if tests[state](m)]
    return found[-1] if found else None


def timed_out(e: dict[str, Any]) -> bool:
    """A decision the server took for a player whose time ran out (C-1.7, S-3.4, B-1.5)."""
    return e["kind"] == "timeout" or e.get("timeout") is True or e.get("reason") == "timeout"


def luckless(game: str, state: str, turn: dict[str, Any]) -> dict[str, Any]:
    """The recorded turn, offered what a tie offers (S-7.1, S-7.3, B-5.2): a real state's
    felt with the dialog of that moment."""
    msg = {**turn, "hand": {**turn["hand"]}}
    ante = msg["info"]["ante"]
    if state == "vote":
        msg["hand"]["phase"] = "tie"
        msg["hand"]["legal"] = [{"do": "split"}, {"do": "cook"}]
    else:
        msg["hand"]["legal"] = [{"do": "join", "price": 4 * ante}, {"do": "skip"}]
    return msg


class Recording:
    """Each game's recorded states, played once per module when a test first asks."""

    def __init__(self, server: Server):
        self.server = server
        self.games: dict[str, dict[str, dict[str, Any]]] = {}
        self.failed: dict[str, Exception] = {}
        self.players: list[SocketPlayer] = []

    def states(self, game: str) -> dict[str, dict[str, Any]]:
        if game in self.failed:
            raise AssertionError(f"recording {game} failed: {self.failed[game]}")
        if game not in self.games:
            try:
                self.games[game] = self.record(game)
            except Exception as error:
                self.failed[game] = error
                raise
        return self.games[game]

    def record(self, game: str) -> dict[str, dict[str, Any]]:
        rng = random.Random(22)
        _, four = seated(self.server, game, 4, 4)
        self.players += four
        wanted = STATES[game]
        out: dict[str, dict[str, Any]] = {}
        for _ in range(12):
            play(four, game, 2, rng)
            msgs = list(messages(four))
            for state in wanted:
                if state not in out and (m := pick(game, state, msgs)):
                    out[state] = m
            lucky = {"vote", "svara"} if game != "classic" else set()
            if set(wanted) - lucky <= set(out):
                break
        for state in ({"vote", "svara"} & set(wanted)) - set(out):
            out[state] = luckless(game, state, out["turn"])
        # Every seat taken (eight in classic, six in the others) and one more in the queue.
        full = FULL[game]
        _, crowd = seated(self.server, game, full, full + 1)
        self.players += crowd
        play(crowd[:full], game, 1, rng)
        msgs = list(messages(crowd))
        for state in ("queue", "full"):
            m = pick(game, state, msgs)
            assert m is not None, f"{game}: no {state} state recorded"
            out[state] = m
        # The tallest bar on the fullest felt: classic's closing turn at the lowest level,
        # played for; the others' turn with the amount panel (S-3.2, B-3.3).
        if game == "classic":
            play(crowd[:full], game, 1, rng, frugal)
            msgs = list(messages(crowd))
        m = pick(game, "full-bar", msgs)
        assert m is not None, f"{game}: no full-bar state recorded"
        out["full-bar"] = m
        if game == "classic":
            _, eight = seated(self.server, game, full, full, levels=MOST_LEVELS)
            self.players += eight
            play(eight, game, 1, rng, frugal)
            m = pick(game, "full-levels", list(messages(eight)))
            assert m is not None, f"{game}: no full-levels state recorded"
            out["full-levels"] = m
        out |= self.with_bots(game, rng)
        # A turn let run out (the shortest timer a table allows, 5 s): «(время вышло)».
        _, three = seated(self.server, game, 3, 3, turn_seconds=5)
        self.players += three
        for p in three:
            assert p.call("table:ready")["ok"]
        three[0].until(lambda s: s["phase"] == "playing" and bool(s["hand"]["awaiting"]))
        three[0].until(lambda s: any(timed_out(e) for e in s["hand"]["events"]), timeout=30)
        three[0].until(lambda s: s["phase"] != "playing" or bool(s["hand"]["awaiting"]))
        m = pick(game, "timeout", list(messages(three)))
        assert m is not None, f"{game}: no timeout recorded"
        out["timeout"] = m
        missing = set(wanted) - set(out)
        assert not missing, f"{game}: never reached {missing}"
        return out

    def with_bots(self, game: str, rng: random.Random) -> dict[str, dict[str, Any]]:
        """The most seats the server's bots take (docs/rules.md, «Bots»: one stays free for a
        person), their avatars, «бот» and «готов» marks: two people at a table of the most
        seats, its creator fills it with bots (`table:bots`), they play a hand, and the bots
        are sent away after it (a bot plays at one money table at a time)."""
        full = FULL[game]
        stack = {} if game == "classic" else {"stack": 400}
        fund_house(self.server, 10 * full * 1000)
        two = [SocketPlayer(self.server, 0, unique_name(NAMES[i])) for i in range(2)]
        self.players += two
        db = database(self.server)
        with db.session() as s:
            creator = s.exec(select(User).where(User.name == two[0].name)).one()
            table = create_table(s, f"Боты {game}", game, seats=full, created_by=creator.id)
            assert table.id is not None
            table_id = table.id
        db.dispose()
        for p in two:
            p.table = table_id
            grant(self.server, p.name, 5000)
            p.join()
            assert p.call("table:sit", **stack)["ok"]
        filled = two[0].call("table:bots", fill=True)
        # As many as the roster has free (a bot seated by an earlier test of this session's
        # server plays there): up to all seats but one.
        assert filled["ok"] and 1 <= len(filled["bots"]) <= full - 3, filled
        taken = len(two) + len(filled["bots"])
        for p in two:
            p.until(lambda s: sum(1 for x in s["seats"] if x) == taken)
        # A hand the bots end before the people speak, or one where a person is never the
        # third to decide: one more (the deal is the server's fair shuffle, not this rng).
        for _ in range(8):
            for p in two:  # one who lost his stack to a bot buys in again (S-1.5)
                p.drain()
                if seated_at(p.state, p.name) and broke(p.state, p.name):
                    # svara32 stands him up only when the next gathering opens (docs/rules.md,
                    # «No money, no seat»): he stands up himself, as the page offers him
                    assert p.call("table:stand")["ok"], p.state["you"]
                    p.until(lambda s, me=p.name: not seated_at(s, me))
                if not seated_at(p.state, p.name):
                    assert p.call("table:sit", **stack)["ok"], p.state["you"]
                    p.until(lambda s, me=p.name: seated_at(s, me))
            play(two, game, 1, rng)
            # Bots answer the gathering only beside a person who can play (docs/rules.md,
            # «Bots»): when both people lost their stacks, they sit again first.
            two[0].until(
                lambda s: (
                    any(x and x["bot"] and x.get("answer") for x in s["seats"])
                    or not all(seated_at(s, p.name) and not broke(s, p.name) for p in two)
                )
            )
            msgs = list(messages(two))
            out = {state: pick(game, state, msgs) for state in ("bots", "bots-between")}
            if all(out.values()):
                break
        assert two[0].call("table:bots", fill=False)["ok"]
        missing = [state for state, m in out.items() if m is None]
        assert not missing, f"{game}: no {missing} state recorded"
        return out  # type: ignore[return-value]

    def close(self) -> None:
        for p in self.players:
            p.close()


@pytest.fixture(scope="module")
def recording(web: Server) -> Iterator[Recording]:
    made = Recording(web)
    yield made
    made.close()


# --- the page that draws a recorded state -----------------------------------------------------
FEED = """async ([msg, lang]) => {
  const { renderTable, bannerFor } = await import("/static/js/render.js");
  const { applyProtocol } = await import("/static/js/protocol.js");
  const { translator, translatePage } = await import("/static/js/i18n.js");
  const t = translator(lang);
  const now = msg.now * 1000;
  const start = { table: {}, seats: [], queue: 0, me: null, view: null, between: [],
                  deadlines: {} };
  const state = applyProtocol(start, msg, now);
  let banner = null;
  for (const e of state.news) banner = bannerFor(e, t, state.view) || banner;
  const ctx = { t, lang, settings: { autoCount: true }, draft: {}, now, banner,
                fresh: new Set(), upBefore: 3 };
  const out = renderTable(state, ctx);
  const regions = { felt: "#felt", hand: "#hand", actions: "#actions", dialog: "#dialog",
                    history: "#history-list" };
  for (const [name, sel] of Object.entries(regions)) {
    document.querySelector(sel).innerHTML = out[name];
  }
  document.body.classList.toggle("has-dialog", Boolean(out.dialog));
  document.body.classList.toggle("my-turn", (state.view?.awaiting || []).includes(state.me));
  const bar = document.querySelector("#actions").offsetHeight;
  document.body.style.setProperty("--bar-h", `${bar}px`);
  document.querySelector("#table-name").textContent = state.table.name;
  document.querySelector("#table-game").textContent = t(`game.${state.table.game}`);
  translatePage(document, lang);
  await document.fonts.ready;
}"""


@pytest.fixture(scope="module")
def felt_pages(web: Server, chromium: Browser) -> Iterator[Callable[[tuple[int, int]], Page]]:
    pages: dict[tuple[int, int], Page] = {}

    def get(size: tuple[int, int]) -> Page:
        if size not in pages:
            w, h = size
            context = chromium.new_context(
                viewport={"width": w, "height": h}, device_scale_factor=1, locale="ru-RU"
            )
            page = context.new_page()
            open_felt(page, web.url)
            still(page)
            pages[size] = page
        return pages[size]

    yield get
    for page in pages.values():
        page.context.close()


# A line of the last three cut short although the felt has room for it: narrower than half
# the felt (C-4.15's list is read at a glance; an ellipsis is for a phone).
CRAMPED = """() => {
  const felt = document.querySelector("#felt").getBoundingClientRect().width;
  if (felt < 900) return [];
  return [...document.querySelectorAll(".last3 li")]
    .filter((li) => li.scrollWidth > li.clientWidth + 1 && li.clientWidth < felt / 2)
    .map((li) => `«${li.textContent}» is cut at ${li.clientWidth} px of a ${felt} px felt`);
}"""


def cramped_log(page: Page) -> list[str]:
    found: list[str] = page.evaluate(CRAMPED)
    return found


def shot_name(lang: str, what: str, size: tuple[int, int]) -> str:
    """layout-<what>-<w>x<h>.png in Russian, layout-<lang>-<what>-<w>x<h>.png otherwise."""
    return f"layout-{'' if lang == 'ru' else lang + '-'}{what}-{size[0]}x{size[1]}.png"


def cases() -> list[Any]:
    out = []
    for lang, sizes in LANGS.items():
        for game, states in STATES.items():
            for state in [*states, *CROWDED, *OWN[game]]:
                for w, h in sizes:
                    out.append(
                        pytest.param(lang, game, state, (w, h), id=f"{lang}-{game}-{state}-{w}")
                    )
    return out


@pytest.mark.parametrize(("lang", "game", "state", "size"), cases())
def test_the_felt_holds(
    recording: Recording,
    felt_pages: Callable[[tuple[int, int]], Page],
    artifacts: Path,
    lang: str,
    game: str,
    state: str,
    size: tuple[int, int],
) -> None:
    msg = recording.states(game)[state]
    page = felt_pages(size)
    page.evaluate(FEED, [msg, lang])
    found = problems(page) + cramped_log(page)
    bubbles = page.locator("#felt .seat:not(.me) .bubble").count()
    if bubbles < BUBBLES.get(state, 0):
        found.append(f"{bubbles} bubbles, not the others' {BUBBLES[state]} decisions")
    if size == SHOT or found:
        page.screenshot(path=str(artifacts / shot_name(lang, f"{game}-{state}", size)))
    assert found == [], f"{lang}: {game} {state} at {size[0]}×{size[1]}:\n" + "\n".join(found)


# --- the real pages: the buy-in, the chat, the voice sheet, the lobby ---------------------------
class Visitor:
    """One registered person in Chromium, whose single page is resized to each size."""

    def __init__(self, server: Server, chromium: Browser):
        self.crowd = Crowd(server, chromium)
        self.player = self.crowd.add({"width": 390, "height": 844}, "Светла")
        self.page = self.player.page
        self.tables: dict[str, tuple[int, list[SocketPlayer]]] = {}
        self.server = server
        self.lang = "ru"

    def speak(self, lang: str) -> None:
        """The device's language, switched on the settings page as a player does."""
        if lang != self.lang:
            choose_language(self.page, self.player.base, LABELS[lang])
            self.lang = lang

    def table(self, game: str) -> int:
        """A table of `game` with two seated and a line in its chat, between hands."""
        if game not in self.tables:
            table, two = seated(self.server, game, 3, 2)
            assert two[0].call("table:chat", text="Привет всем, садитесь!")["ok"]
            self.tables[game] = (table, two)
        return self.tables[game][0]

    def close(self) -> None:
        for _, players in self.tables.values():
            for p in players:
                p.close()
        self.crowd.close()


@pytest.fixture(scope="module")
def visitor(web: Server, chromium: Browser) -> Iterator[Visitor]:
    made = Visitor(web, chromium)
    yield made
    made.close()


def open_page(visitor: Visitor, game: str, view: str) -> None:
    """The real table page in `view`: the buy-in asked on entering (S-1.5), the chat or the
    settings with the voice sheet opened by their top-bar buttons."""
    page = visitor.page
    table = visitor.table(game)
    page.goto(f"{visitor.player.base}/table/{table}" + ("" if view == "buyin" else "?watch=1"))
    pw_expect(page.locator(".seat").first).to_be_visible()
    if view == "buyin":
        pw_expect(page.locator("#buy-in")).to_be_visible()
    elif view == "chat":
        page.click('[data-panel="chat-panel"]')
        pw_expect(page.locator("#chat-list li")).to_have_count(1)
    else:
        page.click('[data-panel="settings-panel"]')
        pw_expect(page.locator("#voice-tuning")).to_be_visible()
    still(page)


# A check box or radio button narrower than the 22 px a thumb is given (a long label beside
# it in a flex row squeezed it).
SQUEEZED = """() => [...document.querySelectorAll("input[type=checkbox], input[type=radio]")]
  .filter((box) => box.checkVisibility() && box.getBoundingClientRect().width < 21.5)
  .map((box) => `the box of «${box.closest("label")?.textContent.trim()}» is ` +
    `${box.getBoundingClientRect().width.toFixed(1)} px wide`)"""


def page_cases() -> list[Any]:
    out = []
    for lang, sizes in LANGS.items():
        for game in STATES:
            for view in ("buyin", "chat", "voice"):
                if view == "buyin" and game == "classic":
                    continue  # no stacks, no buy-in (C-1.2)
                for w, h in sizes:
                    out.append(
                        pytest.param(lang, game, view, (w, h), id=f"{lang}-{game}-{view}-{w}")
                    )
    return out


@pytest.mark.parametrize(("lang", "game", "view", "size"), page_cases())
def test_the_table_page_holds(
    visitor: Visitor, artifacts: Path, lang: str, game: str, view: str, size: tuple[int, int]
) -> None:
    page = visitor.page
    visitor.speak(lang)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_page(visitor, game, view)
    pw_expect(page.locator("html")).to_have_attribute("lang", lang)
    found = problems(page) + page.evaluate(SQUEEZED)
    if size == SHOT or found:
        page.screenshot(path=str(artifacts / shot_name(lang, f"{game}-{view}", size)))
    assert found == [], f"{lang}: {game} {view} at {size[0]}×{size[1]}:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("lang", "size"),
    [
        pytest.param(lang, size, id=f"{lang}-lobby-{size[0]}")
        for lang, s in LANGS.items()
        for size in s
    ],
)
def test_the_lobby_holds(
    visitor: Visitor, artifacts: Path, lang: str, size: tuple[int, int]
) -> None:
    """The lobby's list with a table of stacks («бай-ин 200–1000») and one with a queue: the
    column heads («Очередь») whole, no word broken («бай-/ин»)."""
    if "lobby" not in visitor.tables:
        visitor.tables["lobby"] = seated(visitor.server, "shaha36", 2, 3)  # one in the queue
    page = visitor.page
    visitor.speak(lang)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(visitor.player.base + "/")
    pw_expect(page.locator(".table-row").first).to_be_visible()
    pw_expect(page.locator("html")).to_have_attribute("lang", lang)
    still(page)
    found = problems(page)
    if size == SHOT or found:
        page.screenshot(path=str(artifacts / shot_name(lang, "lobby", size)))
    assert found == [], f"{lang}: the lobby at {size[0]}×{size[1]}:\n" + "\n".join(found)


# Whether a banner is ever on the felt together with the cards of a new deal.
WATCH_DEAL = """() => {
  window.bannerOnDeal = false;
  new MutationObserver(() => {
    const dealt = document.querySelector(".my-cards .card.dealt");
    if (dealt && document.querySelector("#felt .banner")) {
      window.bannerOnDeal = true;
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


def test_the_last_hands_banner_is_gone_before_the_next_deal(visitor: Visitor) -> None:
    """The winner's banner (5 s) is taken down by the next deal: its cards come onto a clean
    felt, whoever answers the gathering at once."""
    page = visitor.page
    visitor.speak("ru")  # the buttons are clicked by their Russian words
    page.set_viewport_size({"width": SHOT[0], "height": SHOT[1]})
    table, (other,) = seated(visitor.server, "classic", 2, 1)
    page.goto(f"{visitor.player.base}/table/{table}")  # entering takes the free seat (C-1.2)
    pw_expect(page.locator(f'.seat[data-seat="{visitor.player.name}"]')).to_be_visible()
    visitor.tables["banner"] = (table, [other])
    for hand in range(2):
        if hand:
            page.evaluate(WATCH_DEAL)
        visitor.player.click("Готов")
        assert other.call("table:ready")["ok"]
        pw_expect(page.locator(".my-cards .card")).to_have_count(3)
        if hand:
            break
        # The hand ends at once: whoever is to speak first gives up (C-4.2).
        other.until(lambda s: s["phase"] == "playing" and bool(s["hand"]["awaiting"]))
        if other.my_turn():
            assert other.act("fold")["ok"]
        else:
            visitor.player.click("Упал")
        pw_expect(page.locator("#felt .banner.win")).to_be_visible()
    page.wait_for_function("() => document.querySelector('.my-cards .card.dealt')")
    assert page.evaluate("window.bannerOnDeal") is False
    pw_expect(page.locator("#felt .banner")).to_have_count(0)


def test_the_bots_turn_is_picked_for_decisions_not_antes() -> None:
    """svara32 records one ante per player (B-1.2): a turn after the antes alone has no
    bubble to show, so `bots` waits for the others' own decisions."""
    bots = [{"name": n, "bot": True} for n in ("Бот Вася", "Бот Зина")]
    seats = [{"name": "Иван", "bot": False}, *bots]
    antes = [{"kind": "ante", "player": s["name"], "amount": 10} for s in seats]
    hand = {"awaiting": ["Иван"], "legal": [{"do": "call"}], "players": [], "events": antes}
    msg = {"you": {"name": "Иван"}, "phase": "playing", "seats": seats, "hand": hand}
    assert pick("svara32", "bots", [msg]) is None
    called = [{"kind": "call", "player": b["name"], "to": 10, "amount": 0} for b in bots]
    later = {**msg, "hand": {**hand, "events": [*antes, *called]}}
    assert pick("svara32", "bots", [msg, later]) is later
