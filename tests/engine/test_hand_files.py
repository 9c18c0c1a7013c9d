"""Every hand file under tests/hands/ replays through the same path as `svara replay`.

A test hand file is an ordinary hand file with three keys that the format ignores:
`rule` (the rule numbers it shows, e.g. "C-4.11"), `title`, and `expect`:
- a success: any of `balances`, `winners`, `rake`, `svaras` (compared exactly);
- a refusal: `{"error": {"step": N, "message": "part of the message"}}` (step null for an
  unfinished hand).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine import handfile

HANDS = Path(__file__).parent.parent / "hands"
FILES = sorted(HANDS.glob("*/*.json"))


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_hand_file(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc.get("rule"), f"{path.name} must cite the rule it shows"
    expect = doc["expect"]
    hf = handfile.parse(doc)
    if "error" in expect:
        with pytest.raises(handfile.ReplayError) as refused:
            handfile.replay(hf)
        assert refused.value.step == expect["error"]["step"]
        assert expect["error"]["message"] in refused.value.message
        return
    hand = handfile.replay(hf)
    summary = handfile.replay_summary(hand)
    for key in ("balances", "winners", "rake", "svaras"):
        if key in expect:
            assert summary[key] == expect[key], key
    # Money is never created or lost (C-0.3): what the players had is what they have + rake.
    before = sum(s.balance for s in hf.seats)
    assert before == sum(summary["balances"].values()) + summary["rake"]
    # Recording the played hand and replaying the record gives the same result.
    again = handfile.replay(handfile.parse(handfile.record(hand, hf.actions)))
    assert handfile.replay_summary(again) == summary


def test_every_game_has_hand_files() -> None:
    assert {p.parent.name for p in FILES} >= {"classic", "shaha36", "svara32"}
