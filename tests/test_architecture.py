"""The dependency rules of docs/architecture.md, read from the source and checked at load time.

Every import of app/, cli/ and rtc/ counts — at the top of a file, inside a function, under
`TYPE_CHECKING` — as an edge to the module it names (`from app.tables import view` names
app.tables.view; `from app.tables import EXTENSION` names app.tables). On that graph:
- no import circle, of any length;
- each room of docs/architecture.md's table imports only the rooms its row allows;
- importing a module alone, in a fresh interpreter, loads none of the rooms its room may not
  reach (a package's `__init__` runs too, so this catches what the edges above cannot).
The checker is run on small planted trees too, so that it is known to fail when it should.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("app", "cli", "rtc")

# Modules any room may use: the app's settings, the Socket.IO and CSRF objects, the name
# rules, the form helpers, the metrics counters (a leaf that every layer counts into), the
# pages' words (read from static/js/i18n.js) and the grouping of client addresses.
COMMON = (
    "app.config",
    "app.extensions",
    "app.names",
    "app.forms",
    "app.metrics",
    "app.i18n",
    "app.clients",
)
# The event layer (its gate and its client manager) and a table's rules (models + the
# engine), used by the features.
FEATURE = (*COMMON, "app.protocol", "app.rooms", "app.table_rules", "app.shards")
WEB = ("app.models", "app.ledger", "app.chat", "app.auth", "app.lobby", "app.tables", "app.bots")
# Each room of docs/architecture.md's table: its modules, and what they may import besides
# their own room (and the `app` package itself, which is import-free: `create_app` imports
# the features when it is called).
ROOMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "app/engine/": (("app.engine",), ()),
    "rtc/": (("rtc",), ()),
    "app/models/": (("app.models",), ("app.engine", "app.config", "app.names")),
    "app/migrations/": (("app.migrations",), ("app.models", "app.names", "app.lobby.invites")),
    "app/ledger.py": (("app.ledger",), ("app.models", "app.engine", "app.table_rules")),
    "app/chat.py": (("app.chat",), ("app.models",)),
    "app/auth/": (("app.auth",), (*FEATURE, "app.models", "app.ledger", "app.engine")),
    "app/lobby/": (
        ("app.lobby",),
        (*FEATURE, "app.models", "app.ledger", "app.engine", "app.chat", "app.auth"),
    ),
    "app/tables/": (
        ("app.tables",),
        (*FEATURE, "app.models", "app.ledger", "app.engine", "app.chat", "app.auth", "app.lobby"),
    ),
    "app/bots/": (("app.bots",), (*FEATURE, *WEB[:-1], "app.engine")),
    "app/voice/": (("app.voice",), (*FEATURE, "app.tables")),
    "app/admin/": (("app.admin",), (*FEATURE, *WEB, "app.engine", "app.voice")),
    "app/history/": (
        ("app.history",),
        (*FEATURE, "app.models", "app.engine", "app.auth", "app.admin.settle"),
    ),
    "cli/": (
        ("cli",),
        (
            "app.admin",
            *COMMON,
            "app.models",
            "app.ledger",
            "app.engine",
            "app.auth",
            "app.lobby",
            "app.backup",
            "app.tls",
            "app.table_rules",
        ),
    ),
    "templates/, static/": ((), ()),
}
# What a module must never load, even through a package's `__init__` (docs/architecture.md).
NEVER_LOADS: dict[str, tuple[str, ...]] = {
    "app.engine": tuple(f"app.{r}" for r in ("models", "tables", "auth", "lobby", "ledger")),
    "rtc": ("app.models", "app.tables", "app.voice", "app.auth"),
    "app.models": ("app.tables", "app.auth", "app.lobby", "app.bots", "app.voice"),
    "app.chat": ("app.tables", "app.lobby", "app.bots", "app.voice"),
    "app.ledger": ("app.tables", "app.auth", "app.lobby", "app.bots", "app.voice"),
    "app.auth": ("app.tables", "app.lobby", "app.bots", "app.voice", "app.admin"),
    "app.lobby": ("app.tables", "app.bots", "app.voice", "app.admin"),
    "app.tables": ("app.bots", "app.voice", "app.admin", "app.history"),
    "app.bots": ("app.voice", "app.admin", "app.history"),
    "app.voice": ("app.bots", "app.admin", "app.history"),
    "app.history": ("app.tables", "app.bots", "app.voice"),
    "app.protocol": ("app.tables", "app.lobby", "app.bots", "app.voice", "app.admin"),
    "app.metrics": ("app.models", "app.auth", "app.tables", "app.voice", "app.protocol"),
    "cli": ("app.tables", "app.bots", "app.voice"),  # the admin CLI never owns a table
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources(root: Path, tops: Iterable[str] = TOPS) -> dict[str, Path]:
    """Every module of the tree by its dotted name."""
    return {
        module_name(path, root): path for top in tops for path in sorted((root / top).rglob("*.py"))
    }


def imported(path: Path, module: str) -> set[str]:
    """Every dotted name the file imports, anywhere in it, relative imports resolved."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            named = ".".join(p for p in (base, node.module or "") if p)
            found |= {f"{named}.{alias.name}" for alias in node.names}
    return found


def graph(root: Path, tops: Iterable[str] = TOPS) -> dict[str, set[str]]:
    """Module → the modules of the tree it imports (the longest existing prefix of each
    imported name: a module, or the package whose name it is)."""
    modules = sources(root, tops)

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = {resolve(name) for name in imported(path, module)}
        edges[module] = {t for t in targets if t is not None and t != module}
    return edges


def circles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def inside(module: str, rooms: Iterable[str]) -> bool:
    return any(module == r or module.startswith(r + ".") for r in rooms)


def trespasses(edges: Mapping[str, set[str]], own: tuple[str, ...], allowed: tuple[str, ...]):
    """`module → target` for every import of the room's modules outside what it may use."""
    return sorted(
        f"{module} → {target}"
        for module, targets in edges.items()
        if inside(module, own)
        for target in targets
        if target != "app" and not inside(target, own) and not inside(target, allowed)
    )


# The child of `loaded`: imports the third-party modules the tree uses once, then forks one
# process per module (two at a time), which imports it alone and reports what of the tree
# got loaded.
LOADER = textwrap.dedent(
    """
    import importlib, json, os, sys
    root, names, warm, tops = sys.argv[1], *map(json.loads, sys.argv[2:5])
    sys.path.insert(0, root)
    for name in warm:
        try:
            importlib.import_module(name)
        except Exception:
            pass
    before, running = set(sys.modules), {}

    def child(name, write):
        try:
            importlib.import_module(name)
            got = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in tops)
            out = {"module": name, "loaded": got}
        except BaseException as e:
            out = {"module": name, "error": repr(e)}
        os.write(write, (json.dumps(out) + "\\n").encode())
        os._exit(0)

    def reap():
        pid, _ = os.wait()
        with os.fdopen(running.pop(pid)) as pipe:
            sys.stdout.write(pipe.read())

    for name in names:
        if len(running) >= 2:
            reap()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            child(name, write)
        os.close(write)
        running[pid] = read
    while running:
        reap()
    """
)


def loaded(root: Path, modules: Iterable[str], tops: Iterable[str] = TOPS) -> dict[str, list[str]]:
    """Each module → the modules of the tree that importing it alone loads."""
    names = sorted(modules)
    tops = list(tops)
    paths = sources(root, tops)
    warm = sorted(
        {
            prefix
            for module, path in paths.items()
            for name in imported(path, module)
            if name.split(".")[0] not in tops
            for prefix in (name, name.rpartition(".")[0])
            if prefix
        }
    )
    arguments = [str(root), *map(json.dumps, (names, warm, tops))]
    result = subprocess.run(
        [sys.executable, "-c", LOADER, *arguments],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=root,
    )
    assert result.returncode == 0, result.stderr
    reports = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    failed = [r for r in reports if "error" in r]
    assert not failed, failed
    return {r["module"]: r["loaded"] for r in reports}


def forbidden_loads(found: Mapping[str, list[str]], never: Mapping[str, tuple[str, ...]]):
    return sorted(
        f"{module} loads {other}"
        for module, others in found.items()
        for room, banned in never.items()
        if inside(module, (room,))
        for other in others
        if inside(other, banned)
    )


# --- the real tree -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    return graph(ROOT)


def test_no_import_circle(edges: dict[str, set[str]]) -> None:
    assert not circles(edges), circles(edges)


def test_every_room_of_the_architecture_has_its_rule() -> None:
    """The rooms of docs/architecture.md's table are exactly those checked here."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## The rooms and their dependency rules", 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    documented = {", ".join(re.findall(r"`([^`]+)`", row.split("|")[1])) for row in rows}
    assert documented == set(ROOMS), documented ^ set(ROOMS)


def test_every_module_is_in_a_room_or_common() -> None:
    """A new top-level module of app/ is either in a room or named above (COMMON, FEATURE,
    or one of the features only `create_app` loads: pages, health, pwa, …)."""
    top_level = {"app", "app.backup", "app.headers", "app.health", "app.pages", "app.pwa"}
    top_level |= {"app.tls", "app.wire", "app.rooms", "app.socket_context"}
    rooms = [own for own, _ in ROOMS.values()]
    unplaced = [
        m
        for m in sources(ROOT)
        if not any(inside(m, own) for own in rooms) and m not in (*FEATURE, *top_level)
    ]
    assert not unplaced, unplaced


@pytest.mark.parametrize("room", [r for r, (own, _) in ROOMS.items() if own])
def test_a_room_imports_only_what_it_may(edges: dict[str, set[str]], room: str) -> None:
    own, allowed = ROOMS[room]
    assert any(inside(m, own) for m in edges), room
    assert not trespasses(edges, own, allowed)


@pytest.mark.slow  # a process per module: docs/testing.md
def test_a_module_alone_loads_no_forbidden_room() -> None:
    """Each module of a room with a «never» imported alone in a fresh process: what it
    loads, through every import and every package's `__init__`, stays out of those rooms."""
    modules = [
        m
        for m in sources(ROOT)
        if any(inside(m, (room,)) for room in NEVER_LOADS) and not m.endswith(".__main__")
    ]
    found = loaded(ROOT, modules)
    assert set(found) == set(modules)
    assert not forbidden_loads(found, NEVER_LOADS)


# --- the checker on planted trees ----------------------------------------------------------


def plant(tmp_path: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def test_the_checker_finds_a_planted_circle_through_a_late_import(tmp_path: Path) -> None:
    """a → b at the top, b → c inside a function, c → a under TYPE_CHECKING: one circle."""
    root = plant(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from . import b\n",
            "pkg/b.py": "def f():\n    from pkg.c import thing\n",
            "pkg/c.py": "import typing\nif typing.TYPE_CHECKING:\n    from .a import x\n",
            "pkg/d.py": "import pkg.a\n",
        },
    )
    assert circles(graph(root, ["pkg"])) == [["pkg.a", "pkg.b", "pkg.c"]]
    (root / "pkg" / "c.py").write_text("")
    assert circles(graph(root, ["pkg"])) == []


def test_the_checker_sees_a_room_entered_by_a_relative_late_import(tmp_path: Path) -> None:
    root = plant(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/tables/__init__.py": "EXTENSION = 'x'\n",
            "app/tables/runtime.py": "",
            "app/lobby/__init__.py": "",
            "app/lobby/views.py": "def f():\n    from ..tables import runtime, EXTENSION\n",
        },
    )
    edges = graph(root, ["app"])
    assert edges["app.lobby.views"] == {"app.tables", "app.tables.runtime"}
    assert trespasses(edges, ("app.lobby",), ("app.chat",)) == [
        "app.lobby.views → app.tables",
        "app.lobby.views → app.tables.runtime",
    ]
    assert trespasses(edges, ("app.lobby",), ("app.tables",)) == []


def test_the_load_check_finds_a_room_loaded_through_a_package_init(tmp_path: Path) -> None:
    """history/service.py imports only auth's roster, but auth's `__init__` loads the
    tables: the import lines are innocent, loading is not."""
    root = plant(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/tables/__init__.py": "",
            "app/auth/__init__.py": "from app import tables\n",
            "app/auth/roster.py": "ROSTER = {}\n",
            "app/history/__init__.py": "",
            "app/history/service.py": "from app.auth.roster import ROSTER\n",
        },
    )
    never = {"app.history": ("app.tables",)}
    edges = graph(root, ["app"])
    assert trespasses(edges, ("app.history",), ("app.auth",)) == []
    found = loaded(root, ["app.history.service"], ["app"])
    assert forbidden_loads(found, never) == ["app.history.service loads app.tables"]
    (root / "app" / "auth" / "__init__.py").write_text("")
    assert forbidden_loads(loaded(root, ["app.history.service"], ["app"]), never) == []
