"""What a player may see of a hand in «Мои раздачи» is the engine's `view(name)` (C-4.19: a
look's two hands only to its two players): the replay's steps and his copy of the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine.fairness import check_document
from app.history.service import fair_of, players_copy, steps

LOOK = Path(__file__).parent / "hands" / "classic" / "c4_11_look.json"


def _doc() -> dict:
    doc = json.loads(LOOK.read_text())
    return {k: v for k, v in doc.items() if k not in ("rule", "title", "expect")}


def _cards(copy: dict) -> dict:
    return {k: v for k, v in copy["deals"][0].items() if k not in ("order", "commit", "seed")}


def test_a_looks_hands_go_only_to_its_two_players() -> None:
    doc = _doc()
    # vera looked at boris (C-4.11): each saw the other's hand; anna never saw boris's.
    vera, anna = (
        _cards(players_copy(doc, "vera", "finished", True)),
        _cards(players_copy(doc, "anna", "finished", True)),
    )
    assert vera["boris"] == ["7♠", "8♦", "9♣"] and vera["vera"] == ["10♠", "J♠", "Q♦"]
    assert "boris" not in anna and anna["anna"] == ["A♥", "K♥", "Q♥"]
    # The dealing order is the stored deal's (handfile.record writes the deal in that order).
    assert players_copy(doc, "anna", "finished", True)["deals"][0]["order"] == list(doc["deals"][0])
    # The steps: as dealt, then one per action; nobody's view has another's hidden cards.
    seen = steps(doc, "anna")
    assert len(seen) == len(doc["actions"]) + 1 and seen[0].action is None
    for step in seen:
        for p in step.view["players"]:
            if p["name"] == "boris":
                assert p["cards"] is None
        assert "legal" not in step.view


def test_an_older_file_has_no_browser_check_but_its_copy_still_verifies() -> None:
    """A hand without the players' seeds (or without any commitment) is not checked by the
    page (fair_of is None); a player's copy of it is still a file `svara verify` reads."""
    doc = _doc()
    assert fair_of(doc, "finished", True) is None
    copy = players_copy(doc, "vera", "finished", True)
    assert check_document(copy, legacy=True).problems == ["deal 0 has no shuffle commitment"]
    assert players_copy(doc, None, "finished", True) is doc  # an administrator: the stored file


# The rules' hand files that play to their end (the others state a refused action).
HAND_FILES = [
    p
    for p in sorted((Path(__file__).parent / "hands").glob("*/*.json"))
    if "error" not in json.loads(p.read_text()).get("expect", {})
]


def _bare(path: Path) -> dict:
    doc = json.loads(path.read_text())
    return {k: v for k, v in doc.items() if k not in ("rule", "title", "expect")}


@pytest.mark.parametrize("path", HAND_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_what_a_player_saw_is_what_was_dealt(path: Path) -> None:
    """For every hand file of the rules (Svaras, looks, showdowns), every viewer's copy
    names, per deal, only that deal's players and only the cards they were dealt."""
    doc = _bare(path)
    for viewer in [p["name"] for p in doc["players"]]:
        copy = players_copy(doc, viewer, "finished", True)
        for d, deal in enumerate(copy["deals"]):
            dealt = doc["deals"][d]
            for name, cards in deal.items():
                if name in ("order", "commit", "seed"):
                    continue
                assert name in dealt, (viewer, d, name)
                assert all(c is None or c == w for c, w in zip(cards, dealt[name], strict=True))
