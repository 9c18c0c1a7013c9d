"""Every language of the pages has the words of every key (static/js/i18n.js).

Russian is the source (docs/rules/ui.md): a key added to RU without its English and Bulgarian
entries fails here, before a player meets the Russian fallback in the middle of a Bulgarian page.
The dictionaries are read from the file itself: one `key: "text",` a line, so a line that is
neither a key, a comment nor blank fails too rather than being skipped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app import i18n
from app.engine.games import GAMES
from app.pages import LANGUAGES, score_table

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def dictionaries() -> dict[str, dict[str, str]]:
    """The dictionaries `DICTS` exports with every game module's `WORDS`, by language, read
    afresh from the files (the server's reader, app/i18n.py, which refuses a line that is
    not one entry)."""
    return i18n.read_all()


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


def test_the_server_writes_cards_amounts_and_times_as_the_pages_do() -> None:
    """app/i18n.py, for the hand's text file and the pages' first words: the deck's letters
    of the language (static/js/cards.js `cardName`), the unit and a result's sign
    (i18n.js `money`, `signedMoney`), a variant by its title, a moment in the viewer's zone."""
    from datetime import UTC, datetime

    assert [i18n.card_name(c, "ru") for c in ("Jk", "A♥", "Q♣", "10♠", "K♦", "J♠")] == [
        "Джокер", "Т♥", "Д♣", "10♠", "К♦", "В♠",
    ]  # fmt: skip
    assert [i18n.card_name(c, "bg") for c in ("Jk", "A♥", "K♦")] == ["Жокер", "А♥", "П♦"]
    assert [i18n.card_name(c, "en") for c in ("Jk", "A♥", "K♦")] == ["Joker", "A♥", "K♦"]
    assert i18n.signed_money(-10) == "−10\u00a0₽" and i18n.signed_money(0) == "0\u00a0₽"
    assert i18n.signed_money(1000) == "+1\u00a0000\u00a0₽"
    assert i18n.variant_title("ru", "svara32", "svara32-traditional") == "Свара 32 по-старому"
    assert i18n.variant_title("en", "classic", "classic") == "Classic"
    assert i18n.variant_title("ru", "shaha36", "у Ивана") == "Шаха · у Ивана"  # a host's own
    when = datetime(2026, 12, 1, 19, 2, tzinfo=UTC)
    assert i18n.utc_iso(when) == "2026-12-01T19:02:00Z"
    moscow = i18n.time_zone("Europe/Moscow")
    assert i18n.local_time(when, moscow) == "2026-12-01 22:02 +03:00"
    assert i18n.time_zone("Mars/Olympus") is UTC and i18n.time_zone(None) is UTC
    assert i18n.language("bg") == "bg" and i18n.language("xx") == "ru"


#: A sentence's words for someone it names: a placeholder holding a player's (or the host's)
#: name, or the person who acts named by his role.
PERSON = re.compile(r"\{(?:by|name|player|whom|loser|target)\}|Администратор|Ведущий|хозяин")
#: Russian past tenses that say the gender of who did it («поднял»/«подняла») — of the verbs
#: the table's and the host's page's sentences use (docs/i18n.md, «Sentences need no
#: declension»): a sentence says them in the present («поднимает») or without a subject.
PAST = re.compile(
    r"\b(?:дал|поднял|посадил|убрал|получил|закрыл|открыл|выключил|включил|изменил|отказал"
    r"|встал|сел|попросил|отправил|забрал|выиграл|упал|сбросил|смотрел)а?\b"
    r"|\b(?:вышел|вышла|пришёл|пришла|ушёл|ушла)\b",
    re.IGNORECASE,
)
#: A Bulgarian perfect («е дал», «е дала») says it too; the aorist («даде») does not.
PERFECT_BG = re.compile(r"\b(?:е|са|сте)\s+[а-я]+л[аи]?\b")
#: Words about a player with no placeholder: the marks his seat shows beside his name
#: (render.js) and the note he reads when stood up by the host.
WHAT_HE_DID = frozenset({"looked", "folded", "kicked"})
#: English pronouns of a named player.
PRONOUN_EN = re.compile(r"\b(?:he|she|his|her|him)\b", re.IGNORECASE)


def test_no_sentence_about_a_player_says_his_gender() -> None:
    """«admin сажает ботов», «Мария получает 1 000 ₽ по своей просьбе»: a sentence whose
    subject is a player or the host is never in a gendered past («посадил», «получил»), in
    any language (a name cannot tell the page whether to write «получил» or «получила»);
    nor a seat's mark or a player's state in a hand («Мария · пас», not «упал»)."""
    gendered = {"ru": PAST, "bg": PERFECT_BG, "en": PRONOUN_EN}
    found = [
        (lang, key, text)
        for lang, words in dictionaries().items()
        for key, text in words.items()
        if PERSON.search(text)
        or key.startswith(("stood.", "log.", "hand.state."))
        or key in WHAT_HE_DID
        if gendered[lang].search(text)
    ]
    assert found == []
    assert PAST.search("{by} посадил ботов") and PAST.search("«{name}» получила 1 000 ₽")


def test_an_amount_is_one_placeholder_with_its_unit() -> None:
    """«{name} забирает {amount}», filled with `money(n)` («3 005 ₽», i18n.js and
    app/i18n.py): no sentence writes «₽» after a placeholder, where a raw number would be
    shown as «3005 ₽» beside the felt's «+3 005 ₽»."""
    found = [
        (lang, key, text)
        for lang, words in dictionaries().items()
        for key, text in words.items()
        if re.search(r"\{\w+\}[\s\u00a0]*₽", text)
    ]
    assert found == []
    assert i18n.translate("ru", "banner_win", name="Ёж", amount=i18n.money(3005)) == (
        "Ёж забирает 3\u00a0005\u00a0₽"
    )
