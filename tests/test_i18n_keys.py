"""Every language of the pages has the words of every key (static/js/i18n.js).

Russian is the source (docs/rules/ui.md): a key added to RU without its English and Bulgarian
entries fails here, before a player meets the Russian fallback in the middle of a Bulgarian page.
The dictionaries are read from the file itself: one `key: "text",` a line, so a line that is
neither a key, a comment nor blank fails too rather than being skipped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.engine.games import GAMES
from app.pages import LANGUAGES, score_table

ROOT = Path(__file__).resolve().parents[1]
I18N = ROOT / "static" / "js" / "i18n.js"
TEMPLATES = ROOT / "templates"
ENTRY = re.compile(r'^  (?:"([^"]+)"|([A-Za-z_]\w*)): "((?:[^"\\]|\\.)*)",$')
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def dictionary(source: str, name: str) -> dict[str, str]:
    """The entries of `const NAME = { … };` in i18n.js."""
    lines = source.splitlines()
    start = lines.index(f"const {name} = {{")
    end = lines.index("};", start)
    out: dict[str, str] = {}
    for line in lines[start + 1 : end]:
        if not line.strip() or line.strip().startswith("//"):
            continue
        found = ENTRY.match(line)
        assert found, f"{name}: not one entry a line: {line!r}"
        key = found.group(1) or found.group(2)
        assert key not in out, f"{name}: {key} twice"
        out[key] = found.group(3)
    return out


def dictionaries() -> dict[str, dict[str, str]]:
    """The dictionaries `DICTS` exports, by language."""
    source = I18N.read_text(encoding="utf-8")
    exported = re.search(r"^export const DICTS = \{ (.*) \};$", source, re.M)
    assert exported, "no DICTS in i18n.js"
    pairs = dict(pair.split(": ") for pair in exported.group(1).split(", "))
    return {lang: dictionary(source, const) for lang, const in pairs.items()}


def test_the_browser_and_the_server_know_the_same_languages() -> None:
    """The settings' switch and the rules' ?lang= (app/pages.py) offer what i18n.js speaks."""
    assert list(dictionaries()) == list(LANGUAGES) == ["ru", "en", "bg"]


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "ru"])
def test_every_russian_key_has_its_words_in_each_language(lang: str) -> None:
    """No key of RU is missing (it would show Russian), none is extra (a typo'd key is never
    shown), and each entry fills the same {placeholders} as the Russian one."""
    dicts = dictionaries()
    ru, other = dicts["ru"], dicts[lang]
    assert len(ru) > 200, "the reader found too few Russian entries"
    missing = [key for key in ru if key not in other]
    assert missing == [], f"{lang} lacks {missing}"
    assert [key for key in other if key not in ru] == [], f"{lang} has keys RU lacks"
    for key, text in other.items():
        assert text.strip(), (lang, key)
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(ru[key])), (lang, key)


def test_every_key_the_templates_name_is_in_the_russian_dictionary() -> None:
    """A `data-i18n`/`data-i18n-label` key of a template that no dictionary has would be
    shown as the key itself (dynamic keys, built in Jinja, are checked by the pages' tests)."""
    ru = dictionaries()["ru"]
    named = {
        key
        for page in TEMPLATES.glob("*.html")
        for key in re.findall(r'data-i18n(?:-label)?="([^"{]+)"', page.read_text("utf-8"))
    }
    assert len(named) > 50
    assert sorted(named - set(ru)) == []


def test_every_hand_name_the_engine_gives_has_its_words() -> None:
    """The names of hands shown at a showdown and in the auto-count (S-2.7: «три шахи» …)
    are the engine's Russian words; each is a key of every dictionary, so an English or
    Bulgarian page names the hand in its own words."""
    names = {name for game in GAMES for name in score_table(game)["labels"].values()}
    assert {"три шахи", "старшие трынки"} <= names
    for lang, words in dictionaries().items():
        assert sorted(names - set(words)) == [], lang


def test_every_player_state_a_replay_shows_has_its_words() -> None:
    """The replay page (/hands/<id>) names each player's state in the page's language: every
    state an engine's view gives, over every hand file, is a `hand.state.*` key of every
    dictionary (not «active» on a Russian page)."""
    from tests.browser.test_words import every_view

    states = {p["state"] for case in every_view() for p in case["view"]["players"]}
    assert {"active", "folded", "playing", "shown"} <= states
    for lang, words in dictionaries().items():
        keys = {f"hand.state.{s}" for s in states}
        assert sorted(keys - set(words)) == [], lang


def test_the_quick_phrases_are_the_servers_in_every_language() -> None:
    """C-8.4: a quick phrase travels as its index; each page shows and speaks it in its own
    language, and the Russian words are the server's (app/chat.py PHRASES)."""
    from app.chat import PHRASES

    words = dictionaries()
    assert [words["ru"][f"phrase.{i}"] for i in range(len(PHRASES))] == list(PHRASES)
    assert f"phrase.{len(PHRASES)}" not in words["ru"]
    assert words["en"]["phrase.0"] != words["ru"]["phrase.0"]
