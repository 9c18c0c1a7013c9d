"""The base of every form: WTForms' own messages in the player's words.

WTForms speaks English. Every message it produces goes through `Messages.gettext`, which
answers with one of a few Russian texts without numbers in them, so that each error on a
page is exactly one of `TEXTS`; the template marks it with its key (`form_error_key`) and the
page's language switch shows it in English (`form.*` in static/js/i18n.js).
"""

from __future__ import annotations

from typing import Any

from flask_wtf import FlaskForm

#: The key and the Russian text of each kind of field error.
TEXTS = {
    "form.required": "Заполните это поле",
    "form.too_long": "Слишком длинное значение",
    "form.range": "Число вне допустимых пределов",
    "form.mismatch": "Пароли не совпадают",  # the one EqualTo: the password, twice
    "form.invalid": "Неверное значение",
}
#: WTForms' message ids (singular and plural forms) → the key; any other is `form.invalid`.
_KINDS = {
    "This field is required.": "form.required",
    "Field cannot be longer than %(max)d character.": "form.too_long",
    "Field cannot be longer than %(max)d characters.": "form.too_long",
    "Number must be between %(min)s and %(max)s.": "form.range",
    "Number must be at least %(min)s.": "form.range",
    "Number must be at most %(max)s.": "form.range",
    "Field must be equal to %(other_name)s.": "form.mismatch",
}
_KEYS = {text: key for key, text in TEXTS.items()}


class Messages:
    """WTForms' translations interface, answering in Russian."""

    def gettext(self, string: str) -> str:
        return TEXTS[_KINDS.get(string, "form.invalid")]

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.gettext(singular if n == 1 else plural)


MESSAGES = Messages()


class Form(FlaskForm):
    """A FlaskForm whose field errors are `TEXTS`."""

    class Meta:
        def get_translations(self, form: Any) -> Messages:
            return MESSAGES


def form_error_key(message: str) -> str:
    """The i18n key of a field error shown on a page."""
    return _KEYS.get(message, "form.invalid")
