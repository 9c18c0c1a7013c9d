"""The lobby page and the form that opens a new table."""

from __future__ import annotations

from typing import Any, NamedTuple

from flask import Blueprint, abort, redirect, render_template, url_for
from wtforms import BooleanField, IntegerField, SelectField, StringField
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from app import i18n, ledger
from app.auth.service import current_user, login_required
from app.engine.games import GAME_PARAMS, GAMES
from app.engine.variants import VariantError
from app.forms import Form
from app.models import get_db
from app.table_rules import find_variant, variant_names

from .invites import invite_qr, invite_url
from .service import create_table, get_lobby

bp = Blueprint("lobby", __name__)
# A private table's whole link and its QR code, for every page that shows one
# (templates/_invite.html).
bp.add_app_template_global(invite_url)
bp.add_app_template_global(invite_qr)


class TableForm(Form):
    name = StringField("Название", validators=[DataRequired(), Length(max=64)])
    variant = SelectField("Вариант", validators=[DataRequired()])
    seats = IntegerField("Мест", validators=[Optional(), NumberRange(min=2, max=8)])
    private = BooleanField("Закрытый: только по ссылке-приглашению")
    games: dict[str, str]  # each variant's game, for the labels of `variant` (set per form)


def game_names() -> dict[str, str]:
    """The games by the names players call them (`game_name.*` of each game's page module,
    in every language; these are the Russian words the page shows before it is translated)."""
    return {name: i18n.translate(i18n.DEFAULT, f"game_name.{name}") for name in GAMES}


def variant_label(name: str, game: str) -> str:
    """A variant as the form lists it before the page is translated (static/js/lobby.js
    says it in the page's language): «Свара 32 по-старому», a host's own variant by its
    name after its game's."""
    return i18n.variant_title(i18n.DEFAULT, game, name)


def _table_form() -> TableForm:
    form = TableForm()
    with get_db().reading() as s:
        form.games = {name: find_variant(s, name).game for name in variant_names(s)}
    form.variant.choices = [(name, variant_label(name, game)) for name, game in form.games.items()]
    return form


class RenewForm(Form):
    """No fields: the CSRF token of «Новая ссылка» (renewing a private table's link)."""


class FormError(NamedTuple):
    """A refusal of the new-table form in the player's words: a key of static/js/i18n.js,
    its parameters, and the Russian the page shows before it is translated."""

    key: str
    args: dict[str, Any]
    text: str


CHECK_FIELDS = FormError("lobby.check_fields", {}, "Проверьте поля формы")


def _refused(s: Any, variant: str, seats: int | None, error: VariantError) -> FormError:
    """What the rules refused, said for the form: the seats out of the game's range (C-1.1,
    S-1.1, B-1.1), else the rule checker's own words after a keyed sentence."""
    param = GAME_PARAMS[find_variant(s, variant).game]["seats"]
    low, high = param.low, param.high
    assert low is not None and high is not None  # every game's seats have a range
    if seats is not None and not low <= seats <= high:
        text = f"Мест за этим столом: от {low} до {high}"
        return FormError("lobby.seats_range", {"low": low, "high": high}, text)
    return FormError("lobby.rules_refused", {"why": str(error)}, f"Стол не открыт: {error}")


def _page(form: TableForm, error: FormError | None = None, status: int = 200) -> Any:
    lobby = get_lobby()
    user = current_user()
    assert user is not None and user.id is not None
    with get_db().reading() as s:
        balance = ledger.user_balance(s, user.id)
    return (
        render_template(
            "lobby.html",
            tables=lobby.tables(),
            private_tables=lobby.private_tables(user.id),
            chat=lobby.chat.recent(),
            form=form,
            error=error,
            balance=balance,
            game_names=game_names(),
            renew_form=RenewForm,
        ),
        status,
    )


@bp.route("/")
@login_required
def index() -> Any:
    return _page(_table_form())


@bp.route("/tables", methods=["POST"])
@login_required
def new_table() -> Any:
    """Open a table (C-1.1: 2..8 seats, within what the variant allows)."""
    form = _table_form()
    if not form.validate_on_submit():
        return _page(form, CHECK_FIELDS, 400)
    user = current_user()
    assert user is not None
    try:
        with get_db().session() as s:
            table = create_table(
                s,
                form.name.data,
                form.variant.data,
                seats=form.seats.data,
                private=form.private.data,
                created_by=user.id,
            )
    except VariantError as e:
        with get_db().session() as s:
            return _page(form, _refused(s, form.variant.data, form.seats.data, e), 400)
    assert table.id is not None
    get_lobby().publish(table.id)
    # «Открыть стол» opens it; a private table's invite link is shown to its creator under
    # «Закрытые столы» first, for him to send it.
    if table.private:
        return redirect(url_for("lobby.index", _anchor="private-tables"))
    return redirect(url_for("pages.table", table_id=table.id))


@bp.route("/invite/<token>")
@login_required
def invite(token: str) -> Any:
    """A private table's invite link: its follower becomes a guest and goes to the table;
    an unknown or closed table's link is a 404 like a table page that does not exist."""
    user = current_user()
    assert user is not None and user.id is not None
    table_id = get_lobby().access.accept(token, user.id)
    if table_id is None:
        abort(404)
    return redirect(url_for("pages.table", table_id=table_id))


@bp.route("/tables/<id:table_id>/invite", methods=["POST"])
@login_required
def renew_invite(table_id: int) -> Any:
    """«Новая ссылка»: the creator replaces a private table's invite link (a leaked one
    stops working at once); anyone else gets the 404 of a table that does not exist."""
    user = current_user()
    assert user is not None and user.id is not None
    if not RenewForm().validate_on_submit():
        abort(400)
    if get_lobby().access.renew(table_id, user.id) is None:
        abort(404)
    return redirect(url_for("lobby.index", _anchor="private-tables"))
