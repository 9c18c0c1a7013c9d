"""A game is its engine module, its page module and one registration line on each side
(docs/architecture.md «A game in its own files»): no other code names a game.

The code of app/, cli/, static/js/ and templates/ is read without its comments and
docstrings (they may say which game a rule comes from); what is left may not hold a game's
id, except in the game's two modules and the two registries' own lines. Data (migrations,
the rules texts) is not code. A fourth game planted in a copy of the tree is then found by
every consumer through the registries alone."""

from __future__ import annotations

import ast
import io
import json
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from app.engine.games import GAMES, MODULES

ROOT = Path(__file__).resolve().parents[1]
ENGINE_REGISTRY = ROOT / "app/engine/games.py"
PAGE_REGISTRY = ROOT / "static/js/games/index.js"
DATA = ("app/migrations/", "app/rules_text/")
JS_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\\\"'`])//[^\n]*", re.S)


def own_files(game: str) -> set[Path]:
    return {ROOT / f"app/engine/{game}.py", ROOT / f"static/js/games/{game}.js"}


def python_code(text: str) -> str:
    """A module's tokens without comments and docstrings: its names and its strings."""
    docstrings = {
        (node.body[0].lineno, node.body[0].col_offset)
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    }
    words = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT or token.start in docstrings:
            continue
        words.append(token.string)
    return " ".join(words)


def code_of(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return python_code(text)
    if path.suffix == ".js":
        return JS_COMMENT.sub(" ", text)
    return re.sub(r"\{#.*?#\}|<!--.*?-->", " ", text, flags=re.S)


def code_files() -> list[Path]:
    out = []
    for folder, pattern in (("app", "*.py"), ("cli", "*.py"), ("static/js", "*.js")):
        out += sorted((ROOT / folder).rglob(pattern))
    out += sorted((ROOT / "templates").rglob("*.html"))
    return [p for p in out if not str(p.relative_to(ROOT)).startswith(DATA)]


def registration_lines(path: Path, game: str) -> list[str]:
    """The lines of a registry that name `game` (its one registration line, and in the
    page registry the module's import)."""
    pattern = re.compile(rf"\b{re.escape(game)}\b")
    return [line for line in code_of(path).splitlines() if pattern.search(line)]


@pytest.mark.parametrize("game", list(GAMES))
def test_no_other_code_names_a_game(game: str) -> None:
    pattern = re.compile(rf"(?<![\w-]){re.escape(game)}(?![\w])")
    allowed = own_files(game) | {ENGINE_REGISTRY, PAGE_REGISTRY}
    naming = [
        str(path.relative_to(ROOT))
        for path in code_files()
        if path not in allowed and pattern.search(code_of(path))
    ]
    assert naming == [], f"{game} is named outside its own modules: {naming}"


@pytest.mark.parametrize("game", list(GAMES))
def test_one_registration_line_on_each_side(game: str) -> None:
    assert len(registration_lines(ENGINE_REGISTRY, game)) == 1
    # the module's import, and its place in `MODULES`, on one line each
    lines = registration_lines(PAGE_REGISTRY, game)
    assert len(lines) == 2 and any(line.startswith("import ") for line in lines), lines


def test_the_registries_list_the_same_games() -> None:
    page = re.search(r"const MODULES = \[(.*?)\];", PAGE_REGISTRY.read_text("utf-8"))
    assert page is not None
    assert [name.strip() for name in page.group(1).split(",")] == list(MODULES)


FOURTH = "pokerok"


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of app/ and static/ with a fourth game: svara32's two modules renamed, and its
    name added to the two registries' lines — nothing else touched."""
    root = tmp_path_factory.mktemp("planted")
    for folder in ("app", "static", "templates", "cli"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    source = "svara32"
    engine = (ROOT / f"app/engine/{source}.py").read_text("utf-8")
    (root / f"app/engine/{FOURTH}.py").write_text(engine.replace(source, FOURTH), "utf-8")
    page = (ROOT / f"static/js/games/{source}.js").read_text("utf-8")
    (root / f"static/js/games/{FOURTH}.js").write_text(page.replace(source, FOURTH), "utf-8")
    registry = root / "app/engine/games.py"
    text = registry.read_text("utf-8")
    registry.write_text(text.replace(f'"{source}")', f'"{source}", "{FOURTH}")'), "utf-8")
    index = root / "static/js/games/index.js"
    text = index.read_text("utf-8")
    text = text.replace(
        f'import {source} from "./{source}.js";',
        f'import {source} from "./{source}.js";\nimport {FOURTH} from "./{FOURTH}.js";',
    )
    index.write_text(text.replace(f"{source}];", f"{source}, {FOURTH}];"), "utf-8")
    return root


CONSUMERS = f"""
import json
from app import i18n
from app.engine.games import GAMES, PRESETS, SCORERS, hand_class
from app.admin.tables import seed
from app.bots import practice_preset
from app.lobby.views import game_names
from app.history.service import _action_words
print(json.dumps({{
    "games": list(GAMES),
    "scorer": len(SCORERS["{FOURTH}"].deck),
    "hand": hand_class("{FOURTH}").game,
    "presets": [p for p in PRESETS if p.startswith("{FOURTH}")],
    "title": i18n.translate("bg", "game_name.{FOURTH}"),
    "names": game_names(),
    "word": _action_words("en", "{FOURTH}", {{"do": "blind", "to": 20}}),
}}))
"""


def test_a_planted_game_is_found_through_the_registries(planted: Path) -> None:
    found = subprocess.run(
        [sys.executable, "-c", CONSUMERS],
        cwd=planted,
        env={"PYTHONPATH": str(planted), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(found.stdout)
    assert out["games"][-1] == FOURTH and out["hand"] == FOURTH and out["scorer"] == 32
    assert f"{FOURTH}-practice" in out["presets"]
    assert out["title"] == "Свара 32" and out["names"][FOURTH] == "Свара 32"
    assert out["word"] == "Blind 20"
