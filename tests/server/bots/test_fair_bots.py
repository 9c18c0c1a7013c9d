"""A bot's shuffle seed at a practice table (docs/fairness.md, «Who gave each seed»): the
server draws it from its committed seed and the hand file says it is a bot's, so a server
that picked it after the person's seed came would fail every check."""

from __future__ import annotations

import copy
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.engine.fairness import BOT, PERSON, Mine, check_document, drawn_seed

from ..conftest import Server, stopped, unique_name
from ..tablekit import Player, bots_server, grant, hands
from .test_bots_live import PRACTICE_BOT, all_in, practice, seats

SEED = "e7" * 32


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = bots_server(Path(tmp_path_factory.mktemp("fair-bots")), "eventlet")
    with stopped(running):
        yield running
    assert running.process.returncode in (0, -signal.SIGTERM), "".join(running.output)


def test_a_practice_bots_seed_is_bound_and_a_forged_one_fails(server: Server) -> None:
    person = Player(server, 0, unique_name("Ёжик"))
    grant(server, person.name, 70)
    person.table = practice(person)
    person.join()
    person.until(lambda s: len(seats(s)) == 2)
    committed = person.state["fair"]["next"]
    bot_seat = next(x for x in person.state["seats"] if x and x["name"] == PRACTICE_BOT)
    assert bot_seat["bot"] is True
    assert person.call("table:ready", seed=SEED) == {"ok": True}
    hand_id = person.until(lambda s: s["phase"] == "playing" and s["hand"]["id"])
    while person.state["phase"] == "playing" and person.state["hand"]["id"] == hand_id:
        if person.my_turn():
            version = person.state["version"]
            reply = person.act(**all_in(person.state["hand"]["legal"]))
            assert reply == {"ok": True} or reply.get("code") == "stale", reply
            person.until(lambda s, v=version: s["version"] > v)
        else:
            person.until(
                lambda s: (
                    s["phase"] != "playing" or s["hand"]["id"] != hand_id or s["hand"]["legal"]
                )
            )
    doc = next(h.hand_file for h in hands(server, person.table) if h.id == hand_id)
    server_seed = doc["deals"][0]["seed"]
    kinds = {s["name"]: (s["kind"], s["seed"]) for s in doc["seeds"]}
    assert kinds == {
        person.name: (PERSON, SEED),
        PRACTICE_BOT: (BOT, drawn_seed(server_seed, PRACTICE_BOT)),
    }
    mine = Mine(SEED, committed, person.name)
    assert check_document(doc, mine=mine, bots=[PRACTICE_BOT]).problems == []
    # The forgery: the bot's seed chosen after the person's came, left unmarked.
    forged = copy.deepcopy(doc)
    bot = next(s for s in forged["seeds"] if s["name"] == PRACTICE_BOT)
    bot["seed"] = "0b" * 32
    bot.pop("drawn")
    assert any("the bot Гэри's seed" in p for p in check_document(forged, mine=mine).problems)
    bot["kind"] = PERSON  # passed off as a person's: the player knows Гэри is a bot
    assert check_document(forged, mine=mine, bots=[PRACTICE_BOT]).problems
    person.close()
