"""How player names are compared: one key per account, look-alikes refused (docs/hosting.md,
«Names»).

A name is shown as its owner wrote it (his case, his letters), but compared by its *key*:
RFC 8265's UsernameCaseMapped profile (PRECIS, via `precis-i18n`) applied to each
space-separated part — full-width letters mapped to their usual width, Unicode NFC, lower
case — so «Иван», «иван», «ИВАН» and «Ｉｖａｎ»/«Ivan» are one name each, whatever the
database's own `lower()` does. The key has a unique index (app/models/accounts.py).

A new name must also not *look* like one already taken (Unicode UTS #39): it is written in one
script (or one of UTS #39's «highly restrictive» Latin + Han/Japanese/Korean mixes; digits,
`_` and `-` belong to every script), and its *skeleton* — each character replaced by the
representative of its class of look-alikes from Unicode's confusables data (shipped by
`confusable-homoglyphs`) — is not an existing name's, so Cyrillic «Аnnа» cannot sit beside
Latin «Anna». Look-alikes of several characters (such as «rn» for «m») are not compared.
"""

from __future__ import annotations

import unicodedata
from functools import cache

import precis_i18n
from confusable_homoglyphs.categories import alias
from confusable_homoglyphs.confusables import confusables_data

_PROFILE = precis_i18n.get_profile("UsernameCaseMapped")
_SHOWN = precis_i18n.get_profile("UsernameCasePreserved")
# Characters of these belong to any script (digits, `_`, `-`, combining marks).
_NEUTRAL = frozenset({"COMMON", "INHERITED"})
# UTS #39 §5.2 «Highly Restrictive»: the mixes one language writes with.
_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)


class NameRefused(ValueError):
    """A name PRECIS refuses (a symbol such as an emoji, a control, a compatibility form)."""


def shown(name: str) -> str:
    """The name as it is stored and shown: the owner's spelling and case, in NFC, with
    full-width letters at their usual width. NameRefused for what no name may contain."""
    return " ".join(_enforce(_SHOWN, part) for part in name.split(" "))


def strict_key(name: str) -> str:
    """The key of a new name; NameRefused for what no name may contain."""
    return " ".join(_enforce(_PROFILE, part) for part in name.split(" "))


def name_key(name: str) -> str:
    """The key every lookup compares (login, sockets, `svara admin`). Total: a name stored
    before names were checked this way, which PRECIS would refuse, gets NFKC + case fold."""
    try:
        return strict_key(name)
    except NameRefused:
        return unicodedata.normalize("NFKC", name).casefold()


def _enforce(profile: precis_i18n.profile.Profile, part: str) -> str:
    try:
        return profile.enforce(part)
    except UnicodeEncodeError as refused:  # the reason is PRECIS's: DISALLOWED/symbols, …
        found = part[refused.start : refused.end]
        raise NameRefused(f"{found!r} cannot be in a name" if found else refused.reason) from None


@cache
def _representatives() -> dict[str, str]:
    """Each confusable character's class representative (its smallest code point): the
    classes are the connected groups of Unicode's single-character look-alikes."""
    parent: dict[str, str] = {}

    def root(char: str) -> str:
        parent.setdefault(char, char)
        while parent[char] != char:
            parent[char] = parent[parent[char]]
            char = parent[char]
        return char

    for char, entries in confusables_data.items():
        for entry in entries:
            if len(entry["c"]) == 1:
                a, b = root(char), root(entry["c"])
                parent[max(a, b)] = min(a, b)
    return {char: root(char) for char in parent}


def skeleton(name: str) -> str:
    """UTS #39 §4's skeleton: two names look alike when their skeletons are equal."""
    representative = _representatives()
    decomposed = unicodedata.normalize("NFD", name)
    return unicodedata.normalize("NFD", "".join(representative.get(c, c) for c in decomposed))


def mixed_scripts(name: str) -> bool:
    """Whether the name mixes scripts that no one language mixes (UTS #39 §5.2)."""
    scripts = {alias(c) for c in name} - _NEUTRAL
    return len(scripts) > 1 and not any(scripts <= mix for mix in _MIXES)
