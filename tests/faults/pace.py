"""The pace of one table that has nothing to do with a fault: a person plays a practice match
against «Гэри» (B-1.4) as fast as the server lets him, on a server whose bots answer as soon
as their timer fires (`SVARA_BOT_THINK=0`). Each round is one answer of his — its ack timed —
and the wait until he may answer again, which takes the bot's timers at that table, the
table's database writes and its states. A fault elsewhere must not slow these rounds: the
tests compare the rounds during a fault with the rounds before it, in the same run.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from tests.server.bots.test_bots_live import practice
from tests.server.conftest import Server, unique_name
from tests.server.tablekit import Player

#: His answers, the first legal one in this order: folding keeps each hand short and the
#: match long (an ante a hand).
PREFERRED = ("fold", "check", "call", "look", "pass", "open")


def may_answer(state: dict[str, Any]) -> bool:
    """His turn in the hand, or «Готов» open between hands."""
    hand = state.get("hand")
    if state["phase"] == "playing":
        return bool(hand and hand["legal"] and state["you"]["name"] in hand["awaiting"])
    return "ready" in state["you"]["can"]


def answer(state: dict[str, Any]) -> dict[str, Any]:
    legal = {option["do"]: option for option in state["hand"]["legal"]}
    do = next((d for d in PREFERRED if d in legal), next(iter(legal)))
    option = legal[do]
    to = option.get("to") if option.get("to") is not None else option.get("min_to")
    return {"do": do, **({"to": to} if to is not None else {})}


class Pace:
    """«Пётр-практика» at his practice table, and the rounds he has played."""

    def __init__(self, server: Server) -> None:
        self.person = Player(server, 0, unique_name("Практик"))
        self.person.table = practice(self.person)
        self.person.join()
        self.person.until(lambda s: len([x for x in s["seats"] if x]) == 2)
        self.acks: list[float] = []
        self.rounds: list[float] = []

    def round(self) -> None:
        """One answer and the wait until he may answer again."""
        person = self.person
        state = person.until(lambda s: may_answer(s) and s)
        start = time.perf_counter()
        if state["phase"] == "playing":
            reply = person.act(**answer(state))
        else:
            reply = person.call("table:ready")
        self.acks.append(time.perf_counter() - start)
        assert reply == {"ok": True} or reply.get("code") in ("stale", "not_now"), reply
        person.until(lambda s, v=state["version"]: s["version"] > v and may_answer(s))
        self.rounds.append(time.perf_counter() - start)

    def play(self, count: int) -> None:
        for _ in range(count):
            self.round()

    def since(self, start: int) -> float:
        """The mean round from round `start` on."""
        return statistics.fmean(self.rounds[start:])
