"""The rules live in the repository: every rule id the code, the pages, the tests and the
docs cite (C-…, S-…, B-…) is defined in docs/rules/, and every document they name
(`docs/rules/classic.md`, `hand-file.md`, a link in a page of docs/) is a file of the repo."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"
BOOKS = {"C": "classic.md", "S": "shaha36.md", "B": "svara32.md"}
# Where rules are cited and documents named (the vendored Socket.IO client aside).
SEARCHED = ("app", "cli", "rtc", "static", "templates", "tests", "docs", "benchmarks", "deploy")
SUFFIXES = {".py", ".js", ".css", ".html", ".md", ".json", ".txt", ".conf", ".toml"}
CITED = re.compile(r"(?<![\w-])([CSB])-(\d+(?:\.\d+[a-z]?)?)(?![\w-])")
# A rule is defined where its id opens a list item (`- C-1.2 …`) or a heading (`## C-3 …`).
DEFINED = re.compile(r"^(?:- |#+ )([CSB])-(\d+(?:\.\d+[a-z]?)?) ", re.M)
NAMED = re.compile(r"(?<![\w/.-])((?:\.\.?/)*[\w./-]*[\w-]+\.md)(?![\w])")


def files() -> Iterator[Path]:
    yield ROOT / "README.md"
    for top in SEARCHED:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and "vendor" not in path.parts:
                yield path


def defined() -> dict[str, set[str]]:
    """Each book's rule ids (C-1.2, and its sections: C-1)."""
    return {
        letter: {
            f"{found}-{number}" for found, number in DEFINED.findall((RULES / book).read_text())
        }
        for letter, book in BOOKS.items()
    }


def cited() -> dict[str, set[str]]:
    """Each rule id → the files that cite it."""
    out: dict[str, set[str]] = {}
    for path in files():
        if path.parent == RULES:
            continue  # the books cite one another's ids by what they define
        for letter, number in CITED.findall(path.read_text(errors="replace")):
            out.setdefault(f"{letter}-{number}", set()).add(str(path.relative_to(ROOT)))
    return out


def resolves(name: str, where: Path, docs: dict[str, list[Path]]) -> bool:
    """A document named in `where`: a path from the repository's root or from the file's own
    folder (a Markdown link), or a bare name that exactly one page of docs/ has."""
    if (ROOT / name).is_file() or (where.parent / name).is_file():
        return True
    return "/" not in name and len(docs.get(name, [])) == 1


def test_every_book_defines_its_rules_and_sections() -> None:
    books = defined()
    assert {"C-0.1", "C-2.6a", "C-4.10a", "C-8.5", "C-3"} <= books["C"]
    assert {"S-1.1", "S-8.2", "S-7"} <= books["S"] and {"B-1.1", "B-6.4", "B-6"} <= books["B"]
    assert all(rule.startswith(letter) for letter, rules in books.items() for rule in rules)


def test_every_cited_rule_is_in_docs_rules() -> None:
    books = defined()
    found = cited()
    assert len(found) > 100, sorted(found)  # the code cites rules everywhere
    missing = {
        rule: sorted(where)[:3] for rule, where in found.items() if rule not in books[rule[0]]
    }
    assert not missing, missing


def test_every_named_document_is_a_file_of_the_repository() -> None:
    docs: dict[str, list[Path]] = {}
    for page in (ROOT / "docs").rglob("*.md"):
        docs.setdefault(page.name, []).append(page)
    broken = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in files()
        if path != Path(__file__)  # its own examples of broken names
        for name in NAMED.findall(path.read_text(errors="replace"))
        if not resolves(name, path, docs)
    )
    assert not broken, broken


def test_the_spec_is_named_by_its_repository_paths() -> None:
    """The rules' books are named by their paths (docs/rules/classic.md), never by the shared
    folder's names beside the repository (rules-classic.md, ../shared/spec/)."""
    stale = re.compile(r"rules-(?:classic|shaha36|svara32|\*)\.md|shared/spec|config\.md")
    found = sorted(
        f"{path.relative_to(ROOT)}: {match}"
        for path in files()
        if path != Path(__file__)
        for match in stale.findall(path.read_text(errors="replace"))
    )
    assert not found, found


def test_the_reference_check_fails_on_what_it_should(tmp_path: Path) -> None:
    docs = {"ui.md": [ROOT / "docs" / "rules" / "ui.md"]}
    page = tmp_path / "page.md"
    assert resolves("docs/rules/hand-file.md", page, docs)
    assert resolves("ui.md", page, docs)
    assert not resolves("rules-classic.md", page, docs)
    assert not resolves("docs/rules/rules-classic.md", page, docs)
    assert NAMED.findall("see hand-file.md#the-format and (../rules.md), not x.mdx") == [
        "hand-file.md",
        "../rules.md",
    ]
    assert CITED.findall("C-4.10a, S-1 and B-2.5; not XC-1, C-1x or C-") == [
        ("C", "4.10a"),
        ("S", "1"),
        ("B", "2.5"),
    ]
