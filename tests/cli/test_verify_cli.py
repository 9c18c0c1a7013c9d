"""`svara verify FILE` as a player runs it on a downloaded hand file (docs/fairness.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from app.engine import handfile
from tests.engine.fairplay import play_fair

SVARA = [sys.executable, "-m", "cli"]


def verify(path: Path | str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SVARA, "verify", str(path)], input=stdin, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip


def test_a_fair_hand_file_verifies(tmp_path: Path) -> None:
    hand, actions = play_fair("shaha36", 1)
    path = tmp_path / "раздача.json"
    path.write_text(json.dumps(handfile.record(hand, actions), ensure_ascii=False))
    out = verify(path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"ok": True, "deals": len(hand.deals)}


def test_a_tampered_seed_fails_with_the_reason(tmp_path: Path) -> None:
    hand, actions = play_fair("classic", 2)
    doc = handfile.record(hand, actions)
    doc["seeds"][0]["seed"] = "f" * 64
    out = verify("-", stdin=json.dumps(doc, ensure_ascii=False))
    assert out.returncode == 1
    assert json.loads(out.stdout)["ok"] is False
    assert "deal 0 does not match its shuffle seeds" in out.stderr


def test_a_changed_server_seed_does_not_open_the_commitment(tmp_path: Path) -> None:
    hand, actions = play_fair("svara32", 4)
    doc = handfile.record(hand, actions)
    doc["deals"][0]["seed"] = "0" * 64
    out = verify("-", stdin=json.dumps(doc))
    assert out.returncode == 1 and "the seed does not open the commitment" in out.stderr


def test_a_file_that_is_not_a_hand_file(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{not json")
    out = verify(tmp_path / "x.json")
    assert out.returncode == 1 and "not valid JSON" in out.stderr
    out = verify("-", stdin='{"variant": "poker"}')
    assert out.returncode == 1 and "not a hand file" in out.stderr
