"""The service worker's shell (app/pwa.py `SHELL`) holds every stylesheet and script module a
page loads: a module missing from it breaks its page offline (an `import` that fails stops
every module importing it), and a stylesheet missing leaves the page unstyled."""

from __future__ import annotations

import re

from app.pwa import SHELL, STATIC

TEMPLATES = STATIC.parent / "templates"
IMPORT = re.compile(
    r"""^\s*(?:import|export)\s[^;]*?from\s+["'](\.{1,2}/[^"']+)["']""", re.M | re.S
)
LINKED = re.compile(r"""url_for\(\s*'static',\s*filename\s*=\s*'([^']+\.(?:js|css))'""")


def imported(module: str) -> set[str]:
    """The static paths a module imports (relative imports, as the pages write them)."""
    source = (STATIC / module).read_text(encoding="utf-8")
    base = (STATIC / module).parent
    return {
        (base / target).resolve().relative_to(STATIC.resolve()).as_posix()
        for target in IMPORT.findall(source)
    }


def test_every_module_a_shell_module_imports_is_in_the_shell() -> None:
    missing = {
        (module, target)
        for module in SHELL
        if module.endswith(".js")
        for target in imported(module)
        if target not in SHELL
    }
    assert not missing, sorted(missing)
    assert {"js/attention.js", "js/asks.js", "js/host.js"} <= set(SHELL)  # the table's own


def test_every_stylesheet_and_script_a_page_links_is_in_the_shell() -> None:
    linked = {
        (template.name, path)
        for template in TEMPLATES.glob("*.html")
        for path in LINKED.findall(template.read_text(encoding="utf-8"))
    }
    assert linked, "no page links a static file: the pattern is wrong"
    missing = sorted((name, path) for name, path in linked if path not in SHELL)
    assert not missing, missing


def test_the_shell_names_only_files_that_exist() -> None:
    assert [path for path in SHELL if not (STATIC / path).is_file()] == []
    assert len(SHELL) == len(set(SHELL))
