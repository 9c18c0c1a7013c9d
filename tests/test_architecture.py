"""The dependency rules of docs/architecture.md, read from the source: each module's imports
(also those inside functions) against the rooms it may not enter."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# (folder or module, what none of its modules may import, what they may import of that)
RULES = [
    ("app/engine", "app", "app.engine"),  # architecture.md: the engine imports nothing of app
    ("rtc", "app", None),  # rtc/ is reached only through its message protocol
    ("app/lobby", "app.tables", None),  # the runtime tells the lobby, never the other way
    ("app/chat.py", "app.tables", None),
    ("app/chat.py", "app.lobby", None),
    # The parts of a live table never import their owner (docs/architecture.md).
    ("app/tables/seating.py", "app.tables.runtime", None),
    ("app/tables/gathering.py", "app.tables.runtime", None),
    ("app/tables/play.py", "app.tables.runtime", None),
    ("app/tables/view.py", "app.tables.runtime", None),
    ("app/tables/watchers.py", "app.tables.runtime", None),
    ("app/tables/model.py", "app.tables", None),
    # The voice chat follows the tables through their hooks; the tables never import it.
    ("app/tables", "app.voice", None),
]


def imports(path: Path, package: str | None = None) -> set[str]:
    """Every module `path` (of `package`, else found from its place) imports, relative
    imports resolved."""
    if package is None:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def inside(module: str, room: str) -> bool:
    return module == room or module.startswith(room + ".")


@pytest.mark.parametrize(("where", "forbidden", "allowed"), RULES)
def test_a_room_imports_only_what_it_may(where: str, forbidden: str, allowed: str | None) -> None:
    target = ROOT / where
    files = sorted(target.rglob("*.py")) if target.is_dir() else [target]
    assert files, where
    broken = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in files
        for module in imports(path)
        if inside(module, forbidden) and not (allowed and inside(module, allowed))
    }
    assert not broken, sorted(broken)


def test_the_rule_check_sees_relative_and_late_imports(tmp_path: Path) -> None:
    """`from .runtime import X` in app/tables/ is app.tables.runtime, and an import inside
    a function counts too."""
    sample = tmp_path / "part.py"
    sample.write_text("from .runtime import LiveTable\n\ndef f():\n    from app import voice\n")
    found = imports(sample, "app.tables")
    assert {"app.tables.runtime", "app.tables.runtime.LiveTable", "app", "app.voice"} <= found
    assert inside("app.tables.runtime.LiveTable", "app.tables.runtime")
    assert not inside("app.tablesx", "app.tables")
