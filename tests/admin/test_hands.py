"""`svara admin hand …` through click's runner, on hands recorded by the runtime's store:
list, show the hand file (which `svara replay` re-runs), verify replay, shuffle commitments
and the ledger — and catch a tampered deal or a tampered ledger."""

from __future__ import annotations

import json
import subprocess
import sys

from sqlalchemy import update
from sqlmodel import select

from app.engine.games import get_variant
from app.models import HandRecord, LedgerEntry

from .conftest import Admin, play


def setup_hands(admin: Admin) -> list[int]:
    for name in ("anna", "boris", "vera"):
        admin.user(name)
        admin.ok("balance", "grant", name, "2000", "--reason", "start")
    table = admin.ok("table", "create", "Вечер", "--variant", "classic")["id"]
    admin.ok("table", "create", "Другой", "--variant", "classic")
    hands = [
        play(admin.db, table, ["anna", "boris"], get_variant("classic"), "h:0"),
        play(admin.db, table, ["anna", "boris", "vera"], get_variant("classic"), "h:1"),
        play(admin.db, table, ["boris", "vera"], get_variant("classic"), "h:2", stop_after=0),
    ]
    return hands


def test_list_show_and_replay(admin: Admin) -> None:
    hands = setup_hands(admin)
    listed = admin.ok("hand", "list")
    assert [h["id"] for h in listed] == hands[::-1]
    assert listed[-1]["players"] == ["anna", "boris"] and listed[0]["status"] == "playing"
    assert [h["id"] for h in admin.ok("hand", "list", "--user", "vera")] == hands[:0:-1]
    assert [h["id"] for h in admin.ok("hand", "list", "--table", "Вечер", "--limit", "1")] == [
        hands[2]
    ]
    assert admin.ok("hand", "list", "--table", "Другой") == []
    shown = admin.run("hand", "show", str(hands[1]))
    doc = json.loads(shown.stdout)
    assert doc["format"] == "svara-hand/1" and all("commit" in d for d in doc["deals"])
    replayed = subprocess.run(
        [sys.executable, "-m", "cli", "replay", "-"],
        input=shown.stdout,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert replayed.returncode == 0 and json.loads(replayed.stdout)["ok"] is True
    admin.refused("hand", "show", "999", match="no hand with id 999")
    admin.refused("hand", "list", "--user", "nobody", match="unknown user")
    admin.refused("hand", "show", "x", match="not a valid integer")


def test_verify_a_finished_and_an_unfinished_hand(admin: Admin) -> None:
    hands = setup_hands(admin)
    report = admin.ok("hand", "verify", str(hands[1]))
    assert report["ok"] and report["problems"] == [] and report["deals"] >= 1
    assert set(report["result"]) == {"anna", "boris", "vera"}
    playing = admin.ok("hand", "verify", str(hands[2]))
    assert playing["ok"] and playing["pot"] > 0  # the antes are in the pot
    assert admin.run("hand", "verify", str(hands[0])).exit_code == 0


def test_verify_catches_a_changed_deal_and_a_changed_ledger(admin: Admin) -> None:
    hands = setup_hands(admin)
    with admin.db.session() as s:
        record = s.get(HandRecord, hands[0])
        assert record is not None and record.hand_file is not None
        doc = json.loads(json.dumps(record.hand_file))
        first, second = list(doc["deals"][0])[:2]
        deal = doc["deals"][0]
        deal[first], deal[second] = deal[second], deal[first]  # swap two players' cards
        record.hand_file = doc
        s.add(record)
    swapped = admin.run("hand", "verify", str(hands[0]))
    assert swapped.exit_code == 1 and "does not match its shuffle seed" in swapped.stdout
    with admin.db.session() as s:  # an ante recorded as twice what the rules charged
        ante = s.exec(
            select(LedgerEntry).where(
                LedgerEntry.hand_id == hands[1], LedgerEntry.kind == "ante", LedgerEntry.amount > 0
            )
        ).first()
        assert ante is not None
        s.execute(update(LedgerEntry).where(LedgerEntry.movement == ante.movement).values(
            amount=LedgerEntry.amount * 2))  # fmt: skip
    changed = admin.ok_or_fail("hand", "verify", str(hands[1]))
    assert changed["ok"] is False
    assert "the ledger differs from the rules" in changed["problems"][0]
