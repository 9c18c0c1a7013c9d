"""The rules tools of docs/rules/hand-file.md as a user runs them: the installed `svara` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SVARA = [sys.executable, "-m", "cli"]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SVARA, *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def test_hand_prints_one_json_line() -> None:
    out = run("hand", "--variant", "classic", "A♥", "K♥", "Q♥")
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout.count("\n") == 1
    assert json.loads(out.stdout) == {
        "variant": "classic", "cards": ["A♥", "K♥", "Q♥"], "points": 31, "absolute": False,
        "label": None,
    }  # fmt: skip


def test_hand_absolute_and_half_points() -> None:
    absolute = json.loads(run("hand", "--variant", "classic", "6c", "6h", "jk").stdout)
    assert (absolute["points"], absolute["absolute"]) == (None, True)
    three = json.loads(run("hand", "--variant", "shaha36", "Ks", "Kh", "Kd").stdout)
    assert three["points"] == 32.5
    top = json.loads(run("hand", "--variant", "shaha36", "6s", "6h", "6c").stdout)
    assert (top["points"], top["label"]) == (34, "три шахи")


@pytest.mark.parametrize(
    ("variant", "cards", "message"),
    [
        ("classic", ["A♥", "K♥", "Xq"], "malformed"),
        ("classic", ["A♥", "K♥"], "exactly three"),
        ("classic", ["A♥", "K♥", "Q♥", "J♥"], "exactly three"),
        ("classic", ["A♥", "ah", "Q♥"], "twice"),
        ("svara32", ["6♠", "K♥", "Q♥"], "not in the svara32 deck"),
        ("shaha36", ["Jk", "K♥", "Q♥"], "not in the shaha36 deck"),
        ("poker", ["A♥", "K♥", "Q♥"], "unknown variant"),
    ],
)
def test_hand_errors_exit_2_with_one_line(variant: str, cards: list[str], message: str) -> None:
    out = run("hand", "--variant", variant, *cards)
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.count("\n") == 1 and message in out.stderr
    assert "Traceback" not in out.stderr


def test_hand_batch_mode_reads_stdin_in_order() -> None:
    out = run("hand", "--variant", "svara32", stdin="7♣ 8♣ 8♦\n7h 7s Kd\n")
    assert out.returncode == 0
    assert [json.loads(line)["points"] for line in out.stdout.splitlines()] == [27, 23]


def test_hand_batch_mode_reports_a_bad_line_and_exits_2() -> None:
    out = run("hand", "--variant", "classic", stdin="A♥ K♥ Q♥\nA♥ K♥\nJk 9c 9d\n")
    assert out.returncode == 2
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0]["points"] == 31 and "error" in lines[1] and lines[2]["points"] == 29


def test_variants_lists_the_presets() -> None:
    out = run("variants")
    names = [line.split()[0] for line in out.stdout.splitlines()]
    assert {"classic", "shaha36", "svara32", "svara32-traditional", "svara32-practice"} <= set(
        names
    )


def test_replay_rejects_invalid_json_with_status_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    out = run("replay", str(bad))
    assert out.returncode == 2 and "not valid JSON" in out.stderr and out.stdout == ""


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"format": "svara-hand/2"}, '"format"'),
        ({"format": "svara-hand/1", "variant": "classic", "rules": {"antes": 5}}, "unknown rule"),
        ({"format": "svara-hand/1", "variant": "classic", "players": [{"name": "a"}]}, "players"),
    ],
)
def test_replay_rejects_a_broken_format_with_status_2(doc: dict, message: str) -> None:
    out = run("replay", "-", stdin=json.dumps(doc))
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr
