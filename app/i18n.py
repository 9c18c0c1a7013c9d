"""The pages' one vocabulary on the server: the dictionaries of static/js/i18n.js, read from
the file itself, so a hand's text file (app/history/), a page's first Russian words and
the browser say the same thing in the same words (docs/i18n.md).

i18n.js keeps one `key: "text",` a line inside `const RU = { … };` (tests/test_i18n_keys.py
holds it to that), which is all this reader needs; each game's own words sit the same way in
its page module, static/js/games/<game>.js (`export const WORDS`), found through the
registry static/js/games/index.js, as i18n.js finds them. Amounts and cards are written here as
static/js/i18n.js `money`/`signedMoney` and static/js/cards.js `cardName` write them.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, tzinfo
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

#: Russian first (ui.md): the pages' own language and every fallback.
DEFAULT = "ru"
_ENTRY = re.compile(r'^  (?:"([^"]+)"|([A-Za-z_]\w*)): ("(?:[^"\\]|\\.)*"),$')
_EXPORT = re.compile(r"^export const (?:DICTS|WORDS) = \{ (.*) \};$", re.M)
_GAME_MODULE = re.compile(r'^import \w+ from "\./(\w+)\.js";$', re.M)
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
MINUS = "\u2212"  # a result's minus sign («−10 ₽»), not a hyphen
THIN = "\u00a0"  # between thousands and before ₽: never broken across lines


def source() -> Path:
    """static/js/i18n.js, beside the package in a checkout or inside it in a wheel."""
    from app import web_folder

    return web_folder("static") / "js" / "i18n.js"


def read_dictionary(text: str, const: str) -> dict[str, str]:
    """The entries of `const NAME = { … };` in the text of i18n.js (ValueError for a line
    that is neither an entry, a comment nor blank: it would be lost silently)."""
    lines = text.splitlines()
    start = lines.index(f"const {const} = {{")
    end = lines.index("};", start)
    out: dict[str, str] = {}
    for line in lines[start + 1 : end]:
        if not line.strip() or line.strip().startswith("//"):
            continue
        found = _ENTRY.match(line)
        if not found:
            raise ValueError(f"{const}: not one entry a line: {line!r}")
        key = found.group(1) or found.group(2)
        if key in out:
            raise ValueError(f"{const}: {key} twice")
        out[key] = json.loads(found.group(3))
    return out


def read_dictionaries(text: str) -> dict[str, dict[str, str]]:
    """Every dictionary `DICTS` exports, by language, in its order."""
    exported = _EXPORT.search(text)
    if not exported:
        raise ValueError("no DICTS (i18n.js) or WORDS (a game's module) exported")
    pairs = dict(pair.split(": ") for pair in exported.group(1).split(", "))
    return {lang: read_dictionary(text, const) for lang, const in pairs.items()}


def game_modules() -> list[Path]:
    """Every game's page module, as static/js/games/index.js imports them."""
    folder = source().parent / "games"
    index = (folder / "index.js").read_text(encoding="utf-8")
    return [folder / f"{name}.js" for name in _GAME_MODULE.findall(index)]


def read_all() -> dict[str, dict[str, str]]:
    """i18n.js's dictionaries with every game's words added, read afresh (ValueError for a
    key two files define)."""
    dicts = read_dictionaries(source().read_text(encoding="utf-8"))
    for module in game_modules():
        for lang, words in read_dictionaries(module.read_text(encoding="utf-8")).items():
            twice = dicts[lang].keys() & words.keys()
            if twice:
                raise ValueError(f"{module.name}: {', '.join(sorted(twice))} defined twice")
            dicts[lang].update(words)
    return dicts


@cache
def dictionaries() -> dict[str, dict[str, str]]:
    return read_all()


def language(asked: str | None) -> str:
    """A language the pages speak: `asked` if it is one, else Russian."""
    return asked if asked in dictionaries() else DEFAULT


def translate(lang: str, key: str, **params: object) -> str:
    """The text of `key` in `lang` (Russian where it lacks one), {placeholders} filled;
    as i18n.js `translate`."""
    dicts = dictionaries()
    text = dicts.get(lang, dicts[DEFAULT]).get(key) or dicts[DEFAULT].get(key, key)
    return _PLACEHOLDER.sub(lambda m: str(params.get(m.group(1), "")), text)


def amount(n: int) -> str:
    """«1 000»: thousands apart by a no-break space, as the pages' `ru-RU` numbers."""
    return f"{abs(n):,}".replace(",", THIN)


def money(n: int) -> str:
    """«1 000 ₽» (i18n.js `money`), its spaces no-break: the pages' tables are narrow and a
    «₽» must not wrap away from its number."""
    return f"{MINUS if n < 0 else ''}{amount(n)}{THIN}₽"


def signed_money(n: int) -> str:
    """A result: «+100 ₽», «−10 ₽», «0 ₽» (i18n.js `signedMoney`)."""
    return f"{'+' if n > 0 else ''}{money(n)}"


def utc_iso(when: datetime) -> str:
    """A moment for `<time datetime>` in UTC («2026-12-01T19:02:00Z»; a naive one is UTC),
    which the page shows in the viewer's time zone (i18n.js `formatTime`)."""
    aware = when if when.tzinfo else when.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def time_zone(name: str | None) -> tzinfo:
    """The viewer's time zone by its IANA name («Europe/Moscow»); UTC for none or one this
    machine does not know."""
    try:
        return ZoneInfo(name) if name else UTC
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def local_time(when: datetime, zone: tzinfo) -> str:
    """«2026-12-01 22:02 +03:00»: a moment in `zone`, its offset said (a text file has no
    viewer to show it to in his own zone)."""
    aware = when if when.tzinfo else when.replace(tzinfo=UTC)
    local = aware.astimezone(zone)
    offset = local.strftime("%z")
    return f"{local:%Y-%m-%d %H:%M} {offset[:3]}:{offset[3:]}"


def card_name(card: str, lang: str) -> str:
    """A card written in text in the deck of `lang` («10♠», «Т♥», «Джокер»), as
    static/js/cards.js `cardName` writes it: the index letters are the dictionary's."""
    if card == "Jk":
        return translate(lang, "card.joker")
    rank, suit = card[:-1], card[-1]
    if rank in "JQKA":
        rank = translate(lang, f"card.{rank}")
    return f"{rank}{suit}"


def variant_title(lang: str, game: str, variant: str) -> str:
    """A table's variant by the name players call it («Свара 32 по-старому»), as i18n.js
    `variantTitle`: the game's own preset is the game's name, a preset of the vocabulary
    its own, a custom variant (named by the host) its name after the game's."""
    name = translate(lang, f"game_name.{game}")
    if variant == game:
        return name
    key = f"variant.{variant}"
    if key in dictionaries()[DEFAULT]:
        return translate(lang, key)
    return f"{name} · {variant}"
