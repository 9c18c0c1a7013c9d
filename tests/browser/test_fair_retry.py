"""A refused and retried «Готов» cannot change the deck (docs/fairness.md, «One seed per
commitment»), in Chromium against a server whose database refuses the write that would start
the hand (`code: server`, as a server that wants another deck might pretend): the page sends
the same seed again, after a reload too, and the hand is dealt with it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.faults.test_database import locked
from tests.server.conftest import Server
from tests.server.tablekit import hands

from .conftest import DESKTOP, PHONE, Crowd, Table, serving

READY = re.compile(r'^\d*42\d*\["table:ready",(.*)\]$')


@pytest.fixture(scope="module")
def refusing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose writes wait half a second for a lock, then fail (real timers: the
    gathering waits for the retry, C-1.3)."""
    with serving(tmp_path_factory, "fair-retry", SVARA_DB_BUSY_TIMEOUT="0.5") as server:
        yield server


def _sent_seeds(frames: list[Any]) -> list[str]:
    out = []
    for frame in frames:
        found = READY.match(frame) if isinstance(frame, str) else None
        if found:
            out.append(json.loads(found.group(1))["seed"])
    return out


def test_a_refused_ready_sends_the_same_seed_again(refusing: Server, chromium: Browser) -> None:
    crowd = Crowd(refusing, chromium)
    try:
        ivan, yozh = crowd.add(DESKTOP, "Иван"), crowd.add(PHONE, "Ёж")
        frames: list[Any] = []
        yozh.page.on("websocket", lambda ws: ws.on("framesent", lambda f: frames.append(f)))
        table = Table([ivan, yozh], ivan.new_table("Без переигровки", "classic", 2))
        table.seat_everyone()
        table.do("Готов", ivan)
        with locked(refusing):
            yozh.click("Готов")
            expect(yozh.page.locator("#toast")).to_be_visible()
        assert len(_sent_seeds(frames)) == 1
        yozh.page.reload()  # the page forgets everything but what the browser keeps
        expect(yozh.bar("Готов")).to_have_count(1)
        table.do("Готов", yozh)
        for p in (ivan, yozh):
            expect(p.page.locator(".my-cards .card")).to_have_count(3)
        first, again = _sent_seeds(frames)
        assert first == again
        doc = hands(refusing, table.id)[-1].hand_file
        commit = doc["deals"][0]["commit"]
        assert {s["name"]: s["seed"] for s in doc["seeds"]}[yozh.name] == first
        kept = yozh.page.evaluate(
            "([t, c]) => JSON.parse(localStorage.getItem(`svara.fair.seed.${t}.${c}`))",
            [table.id, commit],
        )
        assert kept == first
        assert ivan.errors == []
    finally:
        crowd.close()
