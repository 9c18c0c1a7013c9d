"""The host's page (`/admin`): the evening without a terminal (docs/hosting.md, «The host's
page»).

Every account with its balance and where its money is, grants and takings with a reason,
the house's money for the bots, the night's settle-up, the open tables with their players,
standing a player up, closing a table, and the players' requests for money. Each form
calls the services `svara admin` calls (money.py, tables.py, requests.py) and reaches the
live tables the same way, through a notice (notices.py, applied by live.py); each ledger
row names the administrator who moved the money.

Only administrators see it (anyone else gets the 404 of a page that does not exist); every
form carries its CSRF token (app/forms.py); every refusal and every result is a sentence
keyed in static/js/i18n.js (`SENTENCES`), written in Russian from there (app/i18n.py) for
the page before the language switch translates it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from functools import wraps
from typing import Any, NamedTuple

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    url_for,
)
from sqlmodel import Session, col, select
from wtforms import HiddenField, IntegerField, StringField
from wtforms.validators import DataRequired, Length, NumberRange

from app import i18n
from app.auth.roster import bot_ids
from app.auth.service import current_user, login_required
from app.forms import Form
from app.ledger import MAX_AMOUNT, LedgerError
from app.lobby.service import get_lobby
from app.models import STACK, USER, Account, Database, Table, User, get_db, utcnow
from app.tables import EXTENSION as TABLES
from app.tables.registry import Tables

from . import AdminError, notices, requests
from .money import grant, grant_house, show_house
from .settle import NIGHT, settle_up
from .users import get_user

bp = Blueprint("admin", __name__, url_prefix="/admin")

#: The page's sentences, by their key in static/js/i18n.js (written in Russian from there,
#: app/i18n.py, before the page's language switch translates them).
SENTENCES = frozenset(
    {
        "admin.zero",
        "admin.no_reason",
        "admin.overdraft",
        "admin.house_overdraft",
        "admin.no_user",
        "admin.too_much",
        "admin.check_fields",
        "admin.not_seated",
        "admin.no_table",
        "admin.not_done",
        "admin.answered",
        "admin.refused",
        "admin.granted",
        "admin.house_granted",
        "admin.stood",
        "admin.closed",
        "admin.approved",
        "admin.declined",
    }
)
#: The values of a refusal's sentence that are amounts (app/admin/money.py's overdrafts).
AMOUNTS = frozenset({"have", "take"})
SECTIONS = ["asks", "accounts", "house", "tables"]  # the page's parts that say what was done
#: The sentences that say what was done; every other one says why nothing was.
DONE = {"admin.granted", "admin.house_granted", "admin.stood", "admin.closed", "admin.approved",
        "admin.declined"}  # fmt: skip


class Said(NamedTuple):
    """One sentence of the page: its key, its values and its Russian text."""

    key: str
    args: dict[str, Any]
    text: str

    @property
    def ok(self) -> bool:
        return self.key in DONE


def said(key: str, **args: Any) -> Said:
    return Said(key, args, i18n.translate(i18n.DEFAULT, key, **args))


# --- the forms ------------------------------------------------------------------------------
AMOUNT = [DataRequired(), NumberRange(min=1, max=MAX_AMOUNT)]
REASON = [DataRequired(), Length(max=200)]


class GrantForm(Form):
    name = HiddenField(validators=[DataRequired(), Length(max=64)])
    amount = IntegerField("Сумма", validators=AMOUNT)
    reason = StringField("Причина", validators=REASON)
    do = HiddenField()  # the button pressed: «Дать» (give) or «Забрать» (take)


class HouseForm(Form):
    amount = IntegerField("Сумма", validators=AMOUNT)
    reason = StringField("Причина", validators=REASON)
    do = HiddenField()


class StandForm(Form):
    table = IntegerField(validators=[DataRequired(), NumberRange(min=1, max=2**53)])
    name = HiddenField(validators=[DataRequired(), Length(max=64)])


class CloseForm(Form):
    table = IntegerField(validators=[DataRequired(), NumberRange(min=1, max=2**53)])
    reason = StringField("Причина", validators=REASON)


class AnswerForm(Form):
    approve = HiddenField()


def admin_only(view: Any) -> Any:
    """The page of administrators: to anyone else it does not exist (404)."""

    @login_required
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        user = current_user()
        if user is None or not user.is_admin:
            abort(404)
        return view(*args, **kwargs)

    return wrapped


def _admin() -> User:
    user = current_user()
    assert user is not None and user.is_admin
    return user


def _refusal(error: Exception) -> Said:
    """A service's refusal as the page says it."""
    if isinstance(error, AdminError) and error.key in SENTENCES:
        # An overdraft's amounts (`have`, `take`) as every amount is written: «1 000 ₽».
        args = {k: i18n.money(v) if k in AMOUNTS else v for k, v in error.params.items()}
        return said(error.key, **args)
    if isinstance(error, LedgerError):
        return said("admin.too_much", most=i18n.money(MAX_AMOUNT))
    return said("admin.refused", why=str(error))


def _tell(kind: str, **data: Any) -> dict[str, Any] | None:
    """Ask the process that plays the table (or any, about a user) to apply a change, as
    `svara admin` does, and wait for its answer (None: nothing answered)."""
    db = get_db()
    with db.session() as s:
        notice = notices.post(s, kind, **data)
    return None if notice is None else notices.answer(db, notice)


# --- what the page shows --------------------------------------------------------------------
def _seats(tables: Tables, s: Session) -> list[dict[str, Any]]:
    """The open tables (not the practice ones, B-1.4) with who sits and waits there."""
    open_tables = s.exec(select(Table).where(~col(Table.closed)).order_by(col(Table.id))).all()
    shown = []
    for table in open_tables:
        live = tables.find(table.id) if table.id is not None else None
        if live is not None and live.variant.rules.get("practice"):
            continue
        snap = live.snapshot() if live is not None else None
        money = snap.money if snap is not None else {}
        shown.append(
            {
                "id": table.id,
                "name": table.name,
                "private": table.private,
                "variant": table.variant,
                "players": [
                    {"name": s.name, "money": money.get(s.name, 0)}
                    for s in (snap.seats if snap is not None else ())
                    if s is not None
                ],
                "queue": list(snap.queue) if snap is not None else [],
                "stacks": live.manners.stacks if live else False,
            }
        )
    return shown


def _accounts(s: Session, seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every person's account: his balance, his stacks at tables and where he sits."""
    bots = bot_ids(s)
    names = dict(s.exec(select(Table.id, Table.name)).all())
    stacks: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for user_id, table_id, amount in s.exec(
        select(Account.user_id, Account.table_id, Account.balance).where(
            Account.kind == STACK, Account.balance > 0
        )
    ):
        if user_id is not None:
            stacks[user_id].append(
                {"table": names.get(table_id, table_id), "amount": i18n.money(amount)}
            )
    # Every balance in one statement (an account not opened yet holds 0), not two a user.
    held = dict(s.exec(select(Account.user_id, Account.balance).where(Account.kind == USER)).all())
    sitting: dict[str, list[str]] = defaultdict(list)
    for table in seats:
        for player in table["players"]:
            sitting[player["name"]].append(table["name"])
        for name in table["queue"]:
            sitting[name].append(table["name"])
    rows = []
    for user in s.exec(select(User).order_by(col(User.name))).all():
        if user.id is None or user.id in bots:
            continue
        rows.append(
            {
                "name": user.name,
                "admin": user.is_admin,
                "banned": user.banned,
                "balance": held.get(user.id, 0),
                "stacks": stacks.get(user.id, []),
                "at": sitting.get(user.name, []),
            }
        )
    return rows


def _messages() -> dict[str, list[Said]]:
    """What the last form did or why it was refused, by the section it belongs to."""
    out: dict[str, list[Said]] = defaultdict(list)
    flashed = get_flashed_messages(with_categories=True, category_filter=SECTIONS)
    # Not typed (next line): with categories Flask gives (category, message) pairs.
    for section, message in flashed:  # type: ignore[str-unpack]
        data = json.loads(message)
        out[section].append(said(data["key"], **data["args"]))
    return out


def _page(refused: dict[str, Said] | None = None, status: int = 200) -> Any:
    tables: Tables = current_app.extensions[TABLES]
    with get_db().session() as s:
        seats = _seats(tables, s)
        accounts = _accounts(s, seats)
        house = show_house(s)
        settle = settle_up(s, utcnow() - NIGHT)
        asks = requests.waiting(s)
    done = _messages()
    for section, message in (refused or {}).items():
        done[section].append(message)
    return (
        render_template(
            "admin.html",
            accounts=accounts,
            house_money=house,
            settle=settle,
            tables=seats,
            asks=asks,
            messages=done,
            most=MAX_AMOUNT,
        ),
        status,
    )


def _done(section: str, message: Said) -> Any:
    """After a form that did its work: back to its section, saying what it did (PRG)."""
    flash(json.dumps({"key": message.key, "args": message.args}), section)
    return redirect(url_for("admin.page", _anchor=section))


def _check_fields() -> Said:
    return said("admin.check_fields", most=MAX_AMOUNT)


# --- the routes -----------------------------------------------------------------------------
@bp.get("")
@admin_only
def page() -> Any:
    return _page()


@bp.post("/grant")
@admin_only
def grant_money() -> Any:
    """«Дать» / «Забрать»: `svara admin balance grant` with this administrator as actor."""
    form = GrantForm()
    if not form.validate_on_submit():
        return _page({"accounts": _check_fields()}, 400)
    amount = form.amount.data if form.do.data != "take" else -form.amount.data
    try:
        with get_db().session() as s:
            done = grant(s, form.name.data, amount, form.reason.data, _admin().name)
            user = s.exec(select(User).where(User.name == done["user"])).one()
            notices.post(s, "balance", user=user.id)
    except (AdminError, LedgerError) as refused:
        return _page({"accounts": _refusal(refused)}, 409)
    return _done(
        "accounts",
        said(
            "admin.granted",
            name=done["user"],
            amount=i18n.signed_money(amount),
            balance=i18n.money(done["balance"]),
        ),
    )


@bp.post("/house")
@admin_only
def grant_to_house() -> Any:
    """The house's money for the bots: `svara admin house grant`."""
    form = HouseForm()
    if not form.validate_on_submit():
        return _page({"house": _check_fields()}, 400)
    amount = form.amount.data if form.do.data != "take" else -form.amount.data
    try:
        with get_db().session() as s:
            done = grant_house(s, amount, form.reason.data, _admin().name)
    except (AdminError, LedgerError) as refused:
        return _page({"house": _refusal(refused)}, 409)
    done_said = said(
        "admin.house_granted", amount=i18n.signed_money(amount), house=i18n.money(done["house"])
    )
    return _done("house", done_said)


def _open_table(s: Session, table_id: int) -> Table:
    table = s.get(Table, table_id)
    if table is None or table.closed:
        raise AdminError(f"table {table_id} is closed", "admin.no_table")
    return table


@bp.post("/stand")
@admin_only
def stand() -> Any:
    """«Поднять»: `svara admin table kick` — the player stands up (or leaves the queue) and
    is told an administrator did it."""
    form = StandForm()
    if not form.validate_on_submit():
        return _page({"tables": said("admin.refused", why="?")}, 400)
    try:
        with get_db().session() as s:
            table = _open_table(s, form.table.data)
            person = get_user(s, form.name.data)
            table_name, person_id, person_name = table.name, person.id, person.name
    except AdminError as refused:
        return _page({"tables": _refusal(refused)}, 409)
    result = _tell("kick", table=form.table.data, user=person_id)
    if result is None or not result.get("ok"):
        return _page({"tables": said("admin.not_seated", name=person_name, table=table_name)}, 409)
    return _done("tables", said("admin.stood", name=person_name, table=table_name))


@bp.post("/close")
@admin_only
def close() -> Any:
    """«Закрыть стол»: `svara admin table close` — the hand in play is cancelled and
    refunded (C-8.5), the stacks go back to the balances, everyone at it is told."""
    form = CloseForm()
    if not form.validate_on_submit():
        return _page({"tables": said("admin.no_reason")}, 400)
    try:
        with get_db().session() as s:
            table_name = _open_table(s, form.table.data).name
    except AdminError as refused:
        return _page({"tables": _refusal(refused)}, 409)
    result = _tell("close", table=form.table.data, reason=form.reason.data.strip())
    if result is None or not result.get("ok"):
        return _page({"tables": said("admin.not_done")}, 409)
    get_lobby().publish(form.table.data)
    return _done("tables", said("admin.closed", table=table_name))


@bp.post("/requests/<id:request_id>")
@admin_only
def answer_request(request_id: int) -> Any:
    """«Дать» / «Отказать» on a player's request: the same answer as `money:answer`."""
    form = AnswerForm()
    if not form.validate_on_submit():
        return _page({"asks": said("admin.answered")}, 400)
    approve = form.approve.data == "1"
    try:
        row = requests.answer_and_tell(request_id, _admin(), approve)
    except requests.AskRefused as refused:
        key = "admin.answered" if refused.code == "ask_answered" else "admin.refused"
        return _page({"asks": said(key, why=refused.reason)}, 409)
    key = "admin.approved" if approve else "admin.declined"
    return _done("asks", said(key, name=row["name"], amount=i18n.money(row["amount"])))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)

    @app.context_processor
    def hosts() -> dict[str, Any]:
        """Every page knows whether its viewer is an administrator (the link to /admin,
        the badge of waiting requests) and who can add money (a player short of it)."""
        user = current_user()
        return {"is_host": bool(user and user.is_admin), "money_hosts": _money_hosts}


def _money_hosts() -> list[dict[str, Any]]:
    """The administrators by name, with whether a page of theirs is open: who can add
    money (the table page's «Попросить фишки»)."""
    db: Database = get_db()
    with db.reading() as s:
        found = [(u.id, u.name) for u in requests.hosts(s)]
    up = requests.online([i for i, _ in found if i is not None])
    return [{"name": name, "online": i in up} for i, name in found]
