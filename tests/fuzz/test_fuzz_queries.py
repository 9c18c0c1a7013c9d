"""Every route of the app (its Flask url_map) with odd values for every query parameter, on
a real `svara serve`, as a logged-in player who played a hand: no answer is a 500
(docs/protocol.md «HTTP next to the protocol»: a bad parameter is a 400 page) and the
server printed no traceback.

The odd values are the ones that broke pages before (a naive date, year 1, «²», a number
past SQLite's integers) and their kind, each for every parameter alone; then more of them
(control characters, markup, long text) for all parameters at once; then Hypothesis draws
more.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import create_app
from tests.server.conftest import WAIT, Server, start_server, stopped
from tests.server.tablekit import SCALE, Player, everyone, new_table, play_hand, seat_and_ready

#: Every query parameter the docs name (docs/protocol.md), and one they do not.
PARAMETERS = ["page", "since", "until", "next", "lang", "watch", "stranger"]
#: Each parameter alone gets these (what broke pages before, and their kind) ...
SHARP = [
    "²", "١", "99999999999999999999", "-1", "0001-01-01", "9999-12-31", "2026-11-01",
    "2026-11-01T20:00:00+05:00", "２０２６-11-01", "\x00",
]  # fmt: skip
#: ... and all of them at once these too.
ODD = [
    *SHARP, "", "0", "1", str(2**63), "1e9", "0x10", " 1", "nan", "2026-11-01T20:00",
    "2026-13-45", "2026-W01", "20261101", "//evil.example", "\n", "%ff", "<b>x</b>",
    "' OR 1=1 --", "🃏", "x" * 5000,
]  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The server, its routes filled in with real ids, and a player who played there."""
    root = Path(tmp_path_factory.mktemp("fuzz-queries"))
    rules = list(create_app({"INSTANCE": str(root / "map")}).url_map.iter_rules())
    server = start_server(root / "instance", "eventlet", SVARA_TIMER_SCALE=str(SCALE))
    with stopped(server):
        table = new_table(server, "classic", seats=3)
        players = [Player(server, table, name) for name in ("Иван", "Ёж")]
        seat_and_ready(server, players, 500)
        everyone(players, lambda s: s["phase"] == "playing")
        hand = play_hand(players, random.Random(5))["id"]
        values = {"table_id": table, "hand_id": hand, "game": "classic", "token": "nope"}
        values["filename"] = "js/i18n.js"
        values["request_id"] = 1  # a request for money (the host's page) nobody made
        routes = []
        for rule in rules:
            path = rule.rule
            for name in rule.arguments:
                kind = "id" if name.endswith("_id") else ("path" if name == "filename" else "")
                marker = f"<{kind}:{name}>" if kind else f"<{name}>"
                path = path.replace(marker, quote(str(values[name]), safe="/"))
            methods = sorted((rule.methods or set()) & {"GET", "POST"})
            routes.extend((method, path) for method in methods)
        yield server, players[0], routes
        for p in players:
            p.close()


def answered(server: Server, player: Player, method: str, path: str, query: dict[str, str]) -> int:
    reply = player.browser.http.request(
        method, server.url + path, params=query, timeout=WAIT, allow_redirects=False
    )
    assert reply.status_code < 500, (method, path, query, reply.status_code, reply.text[:400])
    return reply.status_code


def no_traceback(server: Server) -> None:
    said = "".join(server.output)
    assert "Traceback" not in said, said[-3000:]


def test_every_route_with_odd_values_for_every_parameter(site: Any) -> None:
    server, player, routes = site
    assert len(routes) >= 25  # the walk covers the whole url_map, not a few pages
    statuses: dict[int, int] = {}
    for method, path in routes:
        alone = [{name: value} for name in PARAMETERS for value in SHARP]
        for query in [*alone, *(dict.fromkeys(PARAMETERS, value) for value in ODD)]:
            status = answered(server, player, method, path, query)
            statuses[status] = statuses.get(status, 0) + 1
    assert statuses.get(400, 0) > 0 and statuses.get(200, 0) > 0  # both kinds were met
    no_traceback(server)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    route=st.integers(0, 10_000),
    name=st.sampled_from(PARAMETERS),
    value=st.text(max_size=40) | st.integers().map(str) | st.dates().map(str),
)
def test_drawn_values_never_answer_500(site: Any, route: int, name: str, value: str) -> None:
    server, player, routes = site
    method, path = routes[route % len(routes)]
    answered(server, player, method, path, {name: value})
    no_traceback(server)
