"""`svara verify FILE` as a player runs it on a downloaded hand file (docs/fairness.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from app.engine import handfile
from tests.engine.fairplay import play_fair

SVARA = [sys.executable, "-m", "cli"]


def verify(
    path: Path | str, stdin: str | None = None, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SVARA, "verify", str(path), *args], input=stdin, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip


def test_a_fair_hand_file_verifies(tmp_path: Path) -> None:
    hand, actions = play_fair("shaha36", 1)
    path = tmp_path / "раздача.json"
    path.write_text(json.dumps(handfile.record(hand, actions), ensure_ascii=False))
    out = verify(path)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["ok"] is True and answer["deals"] == len(hand.deals)
    assert answer["kinds"] == {
        s.name: "bot" if s.name.startswith("Гэри") else "person" for s in hand.seats
    }
    assert "not proven" in out.stderr and "--seed" in out.stderr


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


def test_the_players_own_seed_and_commitment(tmp_path: Path) -> None:
    """What the page proves, offline: the hand used his seed under the commitment he saw."""
    hand, actions = play_fair("classic", 6)
    doc = handfile.record(hand, actions)
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(doc, ensure_ascii=False))
    me, commit = doc["seeds"][0], doc["deals"][0]["commit"]
    good = verify(path, None, "--seed", me["seed"], "--commit", commit, "--name", me["name"])
    assert good.returncode == 0 and "not proven" not in good.stderr, good.stderr
    other = verify(path, None, "--seed", me["seed"], "--commit", "0" * 64)
    assert other.returncode == 1 and "not the one your page was shown" in other.stderr
    lost = verify(path, None, "--seed", "ab" * 32, "--commit", commit)
    assert lost.returncode == 1 and "your seed is not among" in lost.stderr
    bad = verify(path, None, "--seed", "XYZ", "--commit", commit)
    assert bad.returncode == 2 and "hexadecimal" in bad.stderr
    half = verify(path, None, "--seed", me["seed"])
    assert half.returncode == 2 and "go together" in half.stderr


def test_a_forged_bot_seed_fails(tmp_path: Path) -> None:
    hand, actions = play_fair("svara32", 2)  # five players, the last a bot
    doc = handfile.record(hand, actions)
    bot = doc["seeds"][-1]
    bot["seed"] = "3" * 64
    del bot["drawn"]
    out = verify("-", json.dumps(doc, ensure_ascii=False))
    assert out.returncode == 1 and "the bot Гэри 🤖's seed is not the one drawn" in out.stderr
    bot["kind"] = "person"
    out = verify("-", json.dumps(doc, ensure_ascii=False), "--bot", "Гэри 🤖")
    assert out.returncode == 1 and "Гэри 🤖 is a bot" in out.stderr


def test_an_old_file_is_refused_unless_legacy(tmp_path: Path) -> None:
    hand, actions = play_fair("classic", 1)
    doc = handfile.record(hand, actions)
    for s in doc["seeds"]:
        del s["kind"]
    old = json.dumps(doc, ensure_ascii=False)
    out = verify("-", old)
    assert out.returncode == 1 and "--legacy" in out.stderr
    out = verify("-", old, "--legacy")
    assert out.returncode == 0 and "not proven: the file does not say who gave" in out.stderr
