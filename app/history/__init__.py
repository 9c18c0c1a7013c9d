"""«Мои раздачи»: a player's hands, their replays and hand files, his figures and a table's
settle-up (docs/protocol.md, «HTTP next to the protocol»; docs/fairness.md).

Every page needs a login; a hand, its file and its text answer 404 to anyone who did not
play in it (an administrator may open every hand), so a spectator never sees a hand's
hidden cards here either (docs/rules.md).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, NoReturn

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    jsonify,
    make_response,
    render_template,
    request,
)

from app import i18n
from app.admin.settle import NIGHT
from app.auth.service import current_user, login_required
from app.engine import handfile
from app.engine.hand import RuleError
from app.models import User, get_db, utcnow

from . import service

bp = Blueprint("history", __name__)


def _user() -> User:
    user = current_user()
    assert user is not None  # login_required
    return user


#: The last page number `/hands?page=` takes (20 hands a page: twenty million hands).
MAX_PAGE = 1_000_000
#: The dates `?since=` and `?until=` take (a day either side keeps their arithmetic, the
#: 30 days before an `until` and the night after a `since`, inside what a date can be).
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 1, tzinfo=UTC)


def _refuse(key: str, text: str, **args: Any) -> NoReturn:
    """A 400 page saying in the page's language what is wrong with the address (the Russian
    here, the key for static/js/i18n.js), never a 500."""
    page = render_template("bad_query.html", key=key, text=text, args=args, back=request.path)
    abort(make_response(page, 400))


def _page_number() -> int:
    """`?page=`: ASCII digits only (int() would take «²» as 2, «١» as 1), 1..MAX_PAGE."""
    raw = request.args.get("page", "1")
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 7) or not 1 <= int(raw) <= MAX_PAGE:
        _refuse("query.page", f"Номер страницы — целое число от 1 до {MAX_PAGE}", max=MAX_PAGE)
    return int(raw)


def _when(name: str, default: datetime | None) -> datetime | None:
    """`?since=` / `?until=`: an ISO date (what the form's date field sends) or date and
    time, read as UTC unless it names its offset; within EARLIEST..LATEST."""
    raw = request.args.get(name)
    if not raw:
        return default
    try:
        when = datetime.fromisoformat(raw) if raw.isascii() and len(raw) <= 40 else None
    except ValueError:
        when = None
    if when is not None:
        when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    if when is None or not EARLIEST <= when <= LATEST:
        low, high = EARLIEST.date().isoformat(), LATEST.date().isoformat()
        text = f"«{name}» — дата от {low} до {high}, например 2026-11-30"
        _refuse("query.date", text, name=name, low=low, high=high)
    return when


@bp.route("/hands")
@login_required
def hands() -> Any:
    page = _page_number()
    with get_db().reading() as s:
        rows, more = service.my_hands(s, _user(), page)
    return render_template("hands.html", rows=rows, page=page, more=more)


def _open(hand_id: int) -> tuple[Any, str, str | None, bool]:
    """The hand, its table's name, whose eyes, and whether its seeds are shown (an
    administrator's always: he reads the stored file anyway)."""
    with get_db().reading() as s:
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
    with get_db().reading() as s:
        figures = service.stats(s, _user(), since, until)
    return render_template("stats.html", stats=figures, since=since, until=until)


@bp.route("/table/<id:table_id>/settle")
@login_required
def settle(table_id: int) -> Any:
    """One night: the last 12 hours, or the 12 from `?since=` — never longer, so a player
    sees only nights he played in (a `since` years back is not «tonight» of every night)."""
    since = _when("since", utcnow() - NIGHT)
    assert since is not None
    with get_db().reading() as s:
        try:
            table, report = service.table_settle(s, _user(), table_id, since, since + NIGHT)
        except service.Missing:
            abort(404)
        name = table.name
    return render_template("settle.html", table_id=table_id, table=name, report=report)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
