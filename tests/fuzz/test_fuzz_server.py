"""Fuzzing a live server (docs/protocol.md): random and malformed Socket.IO events and HTTP
requests, with random disconnects, from several players at two tables.

Hypothesis draws programs of steps: garbage (any event name, any JSON payload), near misses
(the right event with a field missing, of the wrong type, out of range, a stale version),
well-formed play (sit, «Готов», a legal decision taken from the player's own state, so hands
really are played), HTTP requests of any method to any path with any form, and dropped
connections. Every event must be answered (its ack), every HTTP answer must be below 500.
Afterwards the ledger verifies, no table is stuck — each is idle, or its hand or gathering
has a deadline still ahead — and the server printed no traceback.
"""

from __future__ import annotations

import random
import string
import threading
from pathlib import Path
from typing import Any

import socketio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.models import FINISHED
from tests.server.conftest import WAIT, Server, start_server
from tests.server.tablekit import SCALE, Player, books, grant, hands, new_table

PLAYERS = 4
EVENTS = [
    "table:join", "table:leave", "table:sit", "table:stand", "table:ready", "table:skip",
    "table:dark", "table:act", "table:chat", "table:bots", "lobby:join", "lobby:leave",
    "lobby:chat", "voice:join", "voice:ice", "voice:offer", "voice:mic", "voice:listen",
    "voice:leave", "voice:members",
    "connect", "disconnect", "message", "error", "*",
]  # fmt: skip
PATHS = [
    "/", "/login", "/register", "/logout", "/tables", "/table/1", "/table/999999", "/rules",
    "/rules/classic", "/rules/nope", "/settings", "/install", "/scores/classic.json",
    "/practice", "/bots.json", "/manifest.webmanifest", "/sw.js", "/offline",
    "/socket.io/?EIO=4&transport=polling", "/static/../app/config.py", "/%00", "/table/-1",
]  # fmt: skip
MOVES = ["sit", "ready", "act", "act", "act", "stand", "chat"]
KINDS = [
    "garbage", "near", "near", "play", "play", "play", "play", "gather", "http", "drop", "flood",
]  # fmt: skip
# The event budget of the fuzzed server (docs/protocol.md «Budget»): roomy enough that the
# steps' own acked calls stay within it, small enough that a `flood` step (three bursts,
# unacked) is refused with `rate` and disconnected; its refusals drain in BURST / RATE s.
RATE, BURST = 200, 100
# Well past a deadline the scheduler (50 ms naps) and a busy CI machine could be late by.
LATE = 2.0

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)  # fmt: skip
fields = st.sampled_from(["table", "version", "do", "to", "deal", "seat", "stack", "since",
                          "text", "phrase", "fill"])  # fmt: skip
field_values = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63),
    # The edges of the protocol's integers (±(2⁵³ − 1), app/protocol.py) and of SQLite's.
    st.sampled_from([0, 1, 2, 3, -1, 10**12, 2**53 - 1, 2**53, -(2**53), 2**63 - 1, 2**63]),
    st.sampled_from(["fold", "call", "raise", "look", "svara", "cook", "split", "timeout", ""]),
    st.text(max_size=30),
    st.booleans(),
    st.none(),
    json_values,
)


@st.composite
def steps(draw: st.DrawFn) -> tuple[Any, ...]:
    kind = draw(st.sampled_from(KINDS))
    who = draw(st.integers(0, PLAYERS - 1))
    if kind == "garbage":
        name = draw(st.sampled_from(EVENTS) | st.text(max_size=12))
        return kind, who, name, draw(json_values)
    if kind == "near":
        payload = draw(st.dictionaries(fields, field_values, max_size=5))
        return kind, who, draw(st.sampled_from(EVENTS[:13])), payload
    if kind == "play":
        return (
            kind,
            who,
            draw(st.sampled_from(["sit", "ready", "act", "act", "act", "stand", "chat"])),
        )
    if kind == "http":
        method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD"]))
        path = draw(
            st.sampled_from(PATHS) | st.text(string.printable, max_size=15).map("/".__add__)
        )
        form = draw(st.dictionaries(st.text(max_size=10), st.text(max_size=30), max_size=4))
        return kind, who, method, path, form
    return kind, who


class Fuzzer:
    """The players and tables a program acts on."""

    def __init__(self, server: Server, tables: list[int], players: list[Player]):
        self.server, self.tables, self.players = server, tables, players
        self.rng = random.Random(0)

    def socket(self, p: Player) -> Player:
        """The player, connected again if a step dropped him (after a flood the server
        refuses that until his refusals have drained: BURST / RATE seconds)."""
        if not p.client.sio.connected:
            p.client.close()
            drained = threading.Event()
            for _ in range(int(WAIT * RATE / BURST)):
                try:
                    p.client = p.browser.socket(p.table)
                    break
                except socketio.exceptions.ConnectionError:
                    drained.wait(BURST / RATE)
            else:
                raise AssertionError(f"{p.name} could not connect again")
            p.state = {}
        return p

    def call(self, p: Player, event: str, payload: Any) -> Any:
        """Emit and insist on an answer (every event is acknowledged, docs/protocol.md)."""
        p = self.socket(p)
        try:
            reply = p.client.sio.call(event, payload, timeout=WAIT)
        except socketio.exceptions.TimeoutError:
            if not p.client.sio.connected:  # the server may close a connection it refuses
                return None
            raise AssertionError(f"no answer to {event} {payload!r}") from None
        p.drain()
        assert isinstance(reply, dict) and "ok" in reply, (event, payload, reply)
        # a refusal says why; "internal error" is a handler that failed (an id beyond
        # SQLite's integers was one)
        assert reply.get("error") != "internal error", (event, payload, reply)
        return reply

    def run(self, step: tuple[Any, ...]) -> None:
        kind, who = step[0], step[1]
        p = self.players[who]
        if kind in ("garbage", "near"):
            self.call(p, step[2], step[3])
        elif kind == "play":
            self.play(p, step[2])
        elif kind == "gather":  # the player's whole table sits down and says «Готов»
            for other in self.players[who % len(self.tables) :: len(self.tables)]:
                self.play(other, "sit")
                self.play(other, "ready")
        elif kind == "http":
            _, _, method, path, form = step
            answer = p.browser.http.request(
                method, self.server.url + path, data=form, timeout=WAIT, allow_redirects=False
            )
            assert answer.status_code < 500, (method, path, form, answer.status_code)
        elif kind == "drop" and p.client.sio.connected:
            p.client.sio.eio.disconnect(abort=True)  # the line goes dead, no goodbye
        elif kind == "flood":  # over the budget at once: refused with `rate`, then cut off
            p = self.socket(p)
            for _ in range(3 * BURST):
                if not p.client.sio.connected:
                    break
                p.client.sio.emit("table:join", {"table": self.tables[0]})
            assert p.client.disconnected.wait(WAIT), "a flood was never cut off"

    def play(self, p: Player, what: str) -> None:
        """A well-formed move at the player's table, from his latest state."""
        table = self.tables[self.players.index(p) % len(self.tables)]
        p.table = table
        if not p.state or p.state.get("table") != table:
            reply = self.call(p, "table:join", {"table": table})
            if reply and reply.get("ok"):
                p.state = reply["state"]
        if what == "act" and p.hand and p.hand["legal"]:
            option = dict(self.rng.choice(p.hand["legal"]))
            if option.get("to") is None and option.get("min_to") is not None:
                option["to"] = option["min_to"]
            act = {k: option[k] for k in ("do", "to", "deal") if option.get(k) is not None}
            self.call(p, "table:act", {"table": table, "version": p.state["version"], **act})
        elif what == "chat":
            self.call(p, "table:chat", {"table": table, "text": "ну что, свара?"})
        elif what in ("sit", "ready", "stand"):
            self.call(p, f"table:{what}", {"table": table})


def test_fuzzing_leaves_balanced_books_no_stuck_table_no_traceback(tmp_path: Path) -> None:
    server = start_server(
        tmp_path,
        "eventlet",
        SVARA_TIMER_SCALE=str(SCALE),
        SVARA_EVENT_RATE=str(RATE),
        SVARA_EVENT_BURST=str(BURST),
    )
    # 30 s timers (0.6 s here): hands left alone end by themselves during the run.
    tables = [
        new_table(server, "classic", turn_seconds=30, ready_seconds=30, svara_seconds=30),
        new_table(server, "svara32", turn_seconds=30, svara_seconds=30),
    ]
    players = [Player(server, tables[i % 2]) for i in range(PLAYERS)]
    try:
        for p in players:
            grant(server, p.name, 10_000)
        fuzzer = Fuzzer(server, tables, players)

        @settings(
            max_examples=60,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(program=st.lists(steps(), min_size=1, max_size=25))
        def fuzz(program: list[tuple[Any, ...]]) -> None:
            for step in program:
                fuzzer.run(step)
            assert server.process.poll() is None, "".join(server.output)

        fuzz()
        played = [r for t in tables for r in hands(server, t)]
        assert any(r.status == FINISHED for r in played), "the fuzzing never finished a hand"
        found = books(server)
        assert found.ok, found.problems
        for table in tables:
            reply = fuzzer.call(players[0], "table:join", {"table": table})
            state = reply["state"]
            if state["phase"] == "playing":
                assert state["turn"] and state["turn"]["deadline"] > state["now"] - LATE, state
            elif state["phase"] == "gathering":
                assert state["gathering"]["deadline"] > state["now"] - LATE, state
        printed = "".join(server.output)
        assert "Traceback" not in printed, printed
    finally:
        for p in players:
            p.close()
        server.stop()
