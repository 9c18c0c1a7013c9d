"""The host's page writes its sentences in Russian before the language switch translates them,
from the same dictionary (app/admin/web.py `SENTENCES`, static/js/i18n.js through
app/i18n.py): every key it may say has its words in each language, placeholders filled."""

from __future__ import annotations

from app.admin.web import SENTENCES, said
from app.i18n import money, signed_money
from tests.test_i18n_keys import dictionaries


def test_every_sentence_of_the_page_is_in_every_language() -> None:
    for lang, words in dictionaries().items():
        missing = sorted(key for key in SENTENCES if key not in words)
        assert missing == [], (lang, missing)


def test_a_sentence_is_written_from_the_dictionary_with_its_values() -> None:
    ru = dictionaries()["ru"]
    done = said("admin.granted", name="Иван", amount=signed_money(500), balance=money(1500))
    assert ru["admin.granted"] == "«{name}»: {amount}, на счёте теперь {balance}"
    assert done.text == "«Иван»: +500\u00a0₽, на счёте теперь 1\u00a0500\u00a0₽"
