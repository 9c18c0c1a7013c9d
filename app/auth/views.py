"""The account pages: register, log in, log out."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from flask_socketio import disconnect

from app.extensions import socketio
from app.models import get_db
from app.names import name_key

from .forms import LoginForm, LogoutForm, RegisterForm
from .hashing import Busy, passwords
from .limits import AccountLimits
from .next import invited_to, safe_next
from .presence import get_presence
from .service import AccountError, check_login, create_user, current_user, log_in, log_out

bp = Blueprint("auth", __name__)
LIMIT_EXTENSION = "svara.login_limit"
ENDED = "session:ended"
BUSY_RETRY = 2  # seconds: every hash thread was taken (app/auth/hashing.py)


def _next() -> str | None:
    """The page the visitor came for (a table, an invite link: app/lobby/invites.py), kept
    from the login to the sign-up and back; only a path of this site."""
    return safe_next(request.args.get("next"))


def _next_page() -> str:
    """Where to go after logging in or signing up: `next`, else the lobby."""
    return _next() or url_for("lobby.index")


def _page(template: str, form: Any, error: AccountError | None) -> str:
    """A login or sign-up page, naming the table its `next` leads to («Вас пригласили за
    стол «Пятница»»), a private one only through its invite link."""
    return render_template(
        template, form=form, error=error, next=_next(), invited=invited_to(get_db(), _next())
    )


def _bad_next() -> AccountError | None:
    """A `next` no browser sends: with control characters (a line break would split the
    redirect's Location header). Such a login is refused before the password is checked."""
    if request.args.get("next", "").isprintable():
        return None
    return AccountError("the return address is not a valid link", "account.bad_next")


TOO_MANY = {
    "account.too_many": "Слишком много попыток. Попробуйте через {} с.",
    "account.too_many_signups": "Слишком много регистраций. Попробуйте через {} с.",
    "account.busy": "Сервер занят проверкой паролей. Попробуйте через {} с.",
}  # the pages' words (static/js/i18n.js translates them by key)


def _too_many(seconds: int, key: str) -> tuple[AccountError, int, dict[str, str]]:
    """The page's answer to a client over a limit: 429, when to retry, in his words."""
    error = AccountError(TOO_MANY[key].format(seconds), key, seconds=seconds)
    return error, 429, {"Retry-After": str(seconds)}


class TooMany(Exception):
    """A form submitted over its limit; retry in `seconds`."""

    def __init__(self, seconds: int):
        super().__init__(seconds)
        self.seconds = seconds


def _limits() -> AccountLimits:
    return current_app.extensions[LIMIT_EXTENSION]


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    form = LoginForm()
    error: AccountError | None = None
    status, headers = 200, dict[str, str]()
    if (bad := _bad_next()) is not None:
        error, status = bad, 400
    elif form.validate_on_submit():
        limits = _limits()
        address, name = request.remote_addr or "", form.name.data.strip()
        key = name_key(name)  # the account's key (app/names.py): «Иван» = «иван»
        wait = limits.login(address, key)
        if wait:
            error, status, headers = _too_many(wait, "account.too_many")
        else:
            try:
                user = check_login(get_db(), name, form.password.data)
            except Busy:
                error, status, headers = _too_many(BUSY_RETRY, "account.busy")
            else:
                if user is None:
                    limits.fail(address, key)
                    error = AccountError("Неверное имя или пароль", "account.wrong_password")
                    status = 401
                else:
                    limits.succeed(address, key)
                    log_in(user)
                    return redirect(_next_page())
    elif form.errors:
        status = 400
    return _page("login.html", form, error), status, headers


@bp.route("/register", methods=["GET", "POST"])
def register() -> Any:
    form = RegisterForm()
    error: AccountError | None = None
    status, headers = 200, dict[str, str]()
    if (bad := _bad_next()) is not None:
        error, status = bad, 400
    elif form.validate_on_submit():
        minimum = current_app.config["PASSWORD_MIN_LENGTH"]
        address = request.remote_addr or ""
        try:
            if wait := _limits().signup(address):
                raise TooMany(wait)
            if len(form.password.data) < minimum:
                raise AccountError(
                    f"пароль — не короче {minimum} символов", "account.password_short", min=minimum
                )
            hashed = passwords.hash(form.password.data)  # before the session (check_login)
            with get_db().session() as s:
                user = create_user(
                    s,
                    form.name.data.strip(),
                    form.password.data,
                    max_length=current_app.config["NAME_MAX_LENGTH"],
                    password_hash=hashed,
                )
        except TooMany as e:
            error, status, headers = _too_many(e.seconds, "account.too_many_signups")
        except AccountError as e:
            error, status = e, 400
        except Busy:
            error, status, headers = _too_many(BUSY_RETRY, "account.busy")
        else:
            _limits().remember(address, name_key(user.name))  # his usual address now
            log_in(user)
            return redirect(_next_page())
    elif form.errors:
        status = 400
    return _page("register.html", form, error), status, headers


@bp.route("/logout", methods=["POST"])
def logout() -> Any:
    """End the session and close the user's live connections (every tab shares the
    session), telling them why."""
    if LogoutForm().validate_on_submit():
        user = current_user()
        if user is not None and user.id is not None:
            for sid in get_presence().sids(user.id):
                socketio.emit(ENDED, {"reason": "logged out"}, to=sid)
                disconnect(sid=sid, namespace="/")
            with get_db().session() as s:
                log_out(s, user)
    return redirect(url_for("auth.login"))
