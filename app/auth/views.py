"""The account pages: register, log in, log out."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from flask_socketio import disconnect

from app.extensions import socketio
from app.models import get_db
from app.names import name_key

from .forms import LoginForm, LogoutForm, RegisterForm
from .limits import FailureLimit
from .presence import get_presence
from .service import AccountError, authenticate, create_user, current_user, log_in, log_out

bp = Blueprint("auth", __name__)
LIMIT_EXTENSION = "svara.login_limit"
ENDED = "session:ended"


def _next_page() -> str:
    """Where to go after logging in: a local path only (never another site)."""
    target = request.args.get("next", "")
    parts = urlsplit(target)
    if target.startswith("/") and not target.startswith("//") and not parts.netloc:
        return target
    return url_for("lobby.index")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    form = LoginForm()
    error: AccountError | None = None
    status, headers = 200, {}
    if form.validate_on_submit():
        limit: FailureLimit = current_app.extensions[LIMIT_EXTENSION]
        key = (request.remote_addr, name_key(form.name.data.strip()))
        wait = limit.retry_after(key)
        if wait:
            seconds = int(wait) + 1
            error = AccountError(
                f"Слишком много попыток. Попробуйте через {seconds} с.",
                "account.too_many",
                seconds=seconds,
            )
            status, headers = 429, {"Retry-After": str(seconds)}
        else:
            with get_db().session() as s:
                user = authenticate(s, form.name.data.strip(), form.password.data)
            if user is None:
                limit.fail(key)
                error = AccountError("Неверное имя или пароль", "account.wrong_password")
                status = 401
            else:
                limit.clear(key)
                log_in(user)
                return redirect(_next_page())
    elif form.errors:
        status = 400
    return render_template("login.html", form=form, error=error), status, headers


@bp.route("/register", methods=["GET", "POST"])
def register() -> Any:
    form = RegisterForm()
    error: AccountError | None = None
    status = 200
    if form.validate_on_submit():
        minimum = current_app.config["PASSWORD_MIN_LENGTH"]
        try:
            if len(form.password.data) < minimum:
                raise AccountError(
                    f"пароль — не короче {minimum} символов", "account.password_short", min=minimum
                )
            with get_db().session() as s:
                user = create_user(
                    s,
                    form.name.data.strip(),
                    form.password.data,
                    max_length=current_app.config["NAME_MAX_LENGTH"],
                )
        except AccountError as e:
            error, status = e, 400
        else:
            log_in(user)
            return redirect(url_for("lobby.index"))
    elif form.errors:
        status = 400
    return render_template("register.html", form=form, error=error), status


@bp.route("/logout", methods=["POST"])
def logout() -> Any:
    """End the session and close the user's live connection, telling it why."""
    if LogoutForm().validate_on_submit():
        user = current_user()
        if user is not None and user.id is not None:
            sid = get_presence().sid(user.id)
            if sid is not None:
                socketio.emit(ENDED, {"reason": "logged out"}, to=sid)
                disconnect(sid=sid, namespace="/")
            with get_db().session() as s:
                log_out(s, user)
    return redirect(url_for("auth.login"))
