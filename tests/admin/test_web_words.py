"""The host's page writes its sentences in Russian before the language switch translates them
(app/admin/web.py `WORDS`): each is exactly the Russian entry of its key in
static/js/i18n.js, so the page reads the same before and after its script runs."""

from __future__ import annotations

from app.admin.web import WORDS
from tests.test_i18n_keys import dictionaries


def test_the_pages_russian_is_the_dictionarys() -> None:
    ru = dictionaries()["ru"]
    assert {key: ru.get(key) for key in WORDS} == WORDS
