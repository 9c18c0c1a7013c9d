"""«Мои раздачи»: a player's hands, their replays and hand files, his figures and a table's
settle-up (docs/protocol.md, «HTTP next to the protocol»; docs/fairness.md).

Every page needs a login; a hand, its file and its text answer 404 to anyone who did not
play in it (an administrator may open every hand), so a spectator never sees a hand's
hidden cards here either (docs/rules.md).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from flask import Blueprint, Flask, Response, abort, jsonify, render_template, request

from app import i18n
from app.auth.service import current_user, login_required
from app.engine import handfile
from app.engine.hand import RuleError
from app.models import User, get_db, utcnow

from . import service

bp = Blueprint("history", __name__)
NIGHT = timedelta(hours=12)  # a table's «tonight»: the hands of the last 12 hours


def _user() -> User:
    user = current_user()
    assert user is not None  # login_required
    return user


def _page_number() -> int:
    raw = request.args.get("page", "1")
    if not raw.isdigit() or int(raw) < 1:
        abort(400, "page must be a whole number from 1")
    return int(raw)


def _when(name: str, default: datetime | None) -> datetime | None:
    raw = request.args.get(name)
    if not raw:
        return default
    try:
        return datetime.fromisoformat(raw)
    except ValueError:
        abort(400, f"{name} must be a date, e.g. 2026-11-30")


@bp.route("/hands")
@login_required
def hands() -> Any:
    page = _page_number()
    with get_db().session() as s:
        rows, more = service.my_hands(s, _user(), page)
    return render_template("hands.html", rows=rows, page=page, more=more)


def _open(hand_id: int) -> tuple[Any, str, str | None, bool]:
    """The hand, its table's name, whose eyes, and whether its seeds are shown (an
    administrator's always: he reads the stored file anyway)."""
    with get_db().session() as s:
        try:
            hand, table, viewer = service.open_hand(s, _user(), hand_id)
        except service.Missing:
            abort(404)
        return hand, table, viewer, viewer is None or service.seeds_shown(s, hand)


@bp.route("/hands/<id:hand_id>")
@login_required
def replay(hand_id: int) -> Any:
    hand, table, viewer, revealed = _open(hand_id)
    doc = hand.hand_file
    try:
        steps = [step._asdict() for step in service.steps(doc, viewer)]
    except (handfile.HandFileError, RuleError):  # a stored file the engine refuses: the
        steps = []  # page says so, and the check below raises the alarm if it is the shuffle
    replay = {
        "hand": hand.id,
        "viewer": viewer,
        "steps": steps,
        "fair": service.fair_of(doc, hand.status, revealed),
    }
    return render_template(
        "hand.html",
        hand=hand,
        table=table,
        replay=replay,
        table_variant=str(doc.get("variant")),
        game=service.game_of(doc),
    )


@bp.route("/hands/<id:hand_id>.json")
@login_required
def hand_file(hand_id: int) -> Any:
    hand, _, viewer, revealed = _open(hand_id)
    response = jsonify(service.players_copy(hand.hand_file, viewer, hand.status, revealed))
    response.headers["Content-Disposition"] = f'attachment; filename="hand-{hand_id}.json"'
    return response


@bp.route("/hands/<id:hand_id>.txt")
@login_required
def hand_text(hand_id: int) -> Any:
    """The hand as text in the language and time zone of the page that asked (`?lang=`,
    `?tz=`, which the replay page's link carries: the language is the device's setting,
    static/js/settings.js, the zone the browser's)."""
    hand, table, viewer, revealed = _open(hand_id)
    lang = i18n.language(request.args.get("lang"))
    zone = i18n.time_zone(request.args.get("tz"))
    text = service.as_text(hand.hand_file, hand, table, viewer, revealed, lang, zone)
    # `content_type`, not `mimetype`: Flask would add a second «; charset=utf-8» to it.
    return Response(text, content_type="text/plain; charset=utf-8")


@bp.route("/stats")
@login_required
def stats() -> Any:
    until = _when("until", None)
    since = _when("since", (until or utcnow()) - timedelta(days=30))
    assert since is not None
    with get_db().session() as s:
        figures = service.stats(s, _user(), since, until)
    return render_template("stats.html", stats=figures, since=since, until=until)


@bp.route("/table/<id:table_id>/settle")
@login_required
def settle(table_id: int) -> Any:
    since = _when("since", utcnow() - NIGHT)
    assert since is not None
    with get_db().session() as s:
        try:
            table, report = service.table_settle(s, _user(), table_id, since)
        except service.Missing:
            abort(404)
        name = table.name
    return render_template("settle.html", table_id=table_id, table=name, report=report)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
