"""«Попросить фишки»: a player short of a table's minimum asks the administrators for money.

A request waits (one per player at a time) until an administrator approves it — an ordinary
grant through `money.grant` (a ledger row whose reason is "request from <name>", its actor
the administrator) — or declines it. Asking is bounded: an amount of 1 to `ASK_MAX`, and at
most `ASK_RATE` requests per player (the `limits` library's moving window, kept where the
account limits are: `RATE_LIMIT_STORAGE`).

The Socket.IO events (docs/protocol.md, «Money»): a player's `money:ask`; every
administrator's pages hear `money:asked` and answer with `money:answer`, then every
administrator and the player hear `money:answered`, and the player's pages get their new
balance (`account:balance`, the `balance` notice's live side, app/admin/live.py) at once.
"""

from __future__ import annotations

import math
import time
from typing import Any

from flask import Flask, current_app
from flask_socketio import emit
from limits import parse, storage
from limits.strategies import MovingWindowRateLimiter
from sqlmodel import Session, col, select

from app import ledger, metrics, protocol
from app.auth.presence import Player, get_presence, user_room
from app.extensions import socketio
from app.ledger import MAX_AMOUNT, LedgerError
from app.models import MoneyRequest, Table, User, get_db, utcnow
from app.models.requests import APPROVED, DECLINED, WAITING

from . import AdminError, notices
from .money import grant

EXTENSION = "svara.money_requests"
ASK, ASKED, ANSWER, ANSWERED, WAITING_EVENT = (
    "money:ask",
    "money:asked",
    "money:answer",
    "money:answered",
    "money:waiting",
)
BALANCE = "account:balance"  # the page's question; the same name as the push (app/admin/live.py)


class AskRefused(Exception):
    """A request or an answer refused: `code` for the page's words (static/js/i18n.js
    `err.<code>`), `fields` the numbers they name."""

    def __init__(self, code: str, reason: str, **fields: Any):
        super().__init__(reason)
        self.code, self.reason, self.fields = code, reason, fields


class AskLimits:
    """At most `ASK_RATE` requests per player (one waiting at a time besides)."""

    def __init__(self, config: dict[str, Any]):
        self.limiter = MovingWindowRateLimiter(
            storage.storage_from_string(config["RATE_LIMIT_STORAGE"])
        )
        self.rate = parse(config["ASK_RATE"])
        self.most = min(int(config["ASK_MAX"]), MAX_AMOUNT)

    def attempt(self, user_id: int) -> int:
        """Count one request: 0 if it may go on, else the seconds to wait."""
        if self.limiter.hit(self.rate, "ask", str(user_id)):
            return 0
        reset = self.limiter.get_window_stats(self.rate, "ask", str(user_id)).reset_time
        return max(1, math.ceil(reset - time.time()))


def hosts(s: Session) -> list[User]:
    """Who can add money: the administrators (not banned), by name."""
    found = select(User).where(col(User.is_admin), ~col(User.banned)).order_by(col(User.name))
    return list(s.exec(found).all())


def request_row(s: Session, request: MoneyRequest) -> dict[str, Any]:
    """A request as the pages show it."""
    user = s.get(User, request.user_id)
    table = s.get(Table, request.table_id) if request.table_id is not None else None
    return {
        "id": request.id,
        "name": user.name if user else "",
        "amount": request.amount,
        "table": request.table_id,
        "table_name": table.name if table else None,
        "status": request.status,
        "by": request.answered_by,
        "created": request.created.isoformat(timespec="seconds"),
    }


def waiting(s: Session) -> list[dict[str, Any]]:
    """Every request waiting for an answer, oldest first."""
    found = select(MoneyRequest).where(MoneyRequest.status == WAITING)
    return [request_row(s, r) for r in s.exec(found.order_by(col(MoneyRequest.id))).all()]


def ask(s: Session, user_id: int, amount: int, table_id: int | None) -> MoneyRequest:
    """A player's request; AskRefused past the bounds, over the rate or with one waiting."""
    limits: AskLimits = current_app.extensions[EXTENSION]
    if not 1 <= amount <= limits.most:
        raise AskRefused("ask_amount", f"ask for 1 to {limits.most}", most=limits.most)
    pending = select(MoneyRequest.id).where(
        MoneyRequest.user_id == user_id, MoneyRequest.status == WAITING
    )
    if s.exec(pending).first() is not None:
        raise AskRefused("ask_waiting", "your request waits for an answer already")
    if wait := limits.attempt(user_id):
        raise AskRefused("ask_rate", f"too many requests: ask again in {wait} s", seconds=wait)
    if table_id is not None and s.get(Table, table_id) is None:
        table_id = None  # a table that does not exist names none (nor says so)
    request = MoneyRequest(user_id=user_id, amount=amount, table_id=table_id)
    s.add(request)
    s.flush()
    return request


def answer(s: Session, request_id: int, admin: User, approve: bool) -> dict[str, Any]:
    """An administrator approves (the grant, its ledger row, the live balance) or declines a
    waiting request; AskRefused when it is answered already or the grant is refused."""
    request = s.get(MoneyRequest, request_id)
    if request is None or request.status != WAITING:
        raise AskRefused("ask_answered", "that request is answered already")
    asker = s.get(User, request.user_id)
    assert asker is not None and asker.id is not None
    if approve:
        try:
            done = grant(s, asker.name, request.amount, f"request from {asker.name}", admin.name)
        except (AdminError, LedgerError) as refused:
            raise AskRefused("ask_grant", str(refused)) from None
        request.entry_id = done["entry"]
        notices.post(s, "balance", user=asker.id)  # his pages: the new balance at once
    request.status = APPROVED if approve else DECLINED
    request.answered, request.answered_by = utcnow(), admin.name
    s.add(request)
    s.flush()
    return request_row(s, request)


# --- the events ---------------------------------------------------------------------------
def _to_hosts(event: str, data: dict[str, Any]) -> None:
    with get_db().session() as s:
        admins = [u.id for u in hosts(s)]
    for admin_id in admins:
        assert admin_id is not None
        socketio.emit(event, data, to=user_room(admin_id))


def _refused(event: str, refused: AskRefused) -> dict[str, Any]:
    metrics.refused(refused.code)
    emit(protocol.ERROR, {"event": event, "reason": refused.reason, "code": refused.code,
                          **refused.fields})  # fmt: skip
    return {"ok": False, "error": refused.reason, "code": refused.code, **refused.fields}


def _ask(player: Player, payload: dict[str, Any]) -> dict[str, Any]:
    """`money:ask` {amount, table?}."""
    try:
        with get_db().session() as s:
            row = request_row(s, ask(s, player.id, payload["amount"], payload.get("table")))
    except AskRefused as refused:
        return _refused(ASK, refused)
    _to_hosts(ASKED, row)
    return {"ok": True, "request": row}


def _admin(player: Player, s: Session) -> User:
    """The administrator behind a connection, as he is now (rights may have been taken)."""
    user = s.get(User, player.id)
    if user is None or not user.is_admin or user.banned:
        raise AskRefused("not_admin", "only an administrator answers requests")
    return user


def answer_and_tell(request_id: int, admin: User, approve: bool) -> dict[str, Any]:
    """`answer`, then every administrator's pages and the player's hear `money:answered`
    (the host's page's form and `money:answer` alike)."""
    with get_db().session() as s:
        row = answer(s, request_id, admin, approve)
        asker = s.get(MoneyRequest, request_id)
        asker_id = asker.user_id if asker else None
    _to_hosts(ANSWERED, row)
    if asker_id is not None:
        socketio.emit(ANSWERED, row, to=user_room(asker_id))
    return row


def _answer(player: Player, payload: dict[str, Any]) -> dict[str, Any]:
    """`money:answer` {id, approve}."""
    try:
        with get_db().session() as s:
            admin = _admin(player, s)
        row = answer_and_tell(payload["id"], admin, payload["approve"])
    except AskRefused as refused:
        return _refused(ANSWER, refused)
    return {"ok": True, "request": row}


def _waiting(player: Player, payload: dict[str, Any]) -> dict[str, Any]:
    """`money:waiting` {}: an administrator's page asks what waits (its badge)."""
    try:
        with get_db().session() as s:
            _admin(player, s)
            return {"ok": True, "requests": waiting(s)}
    except AskRefused as refused:
        return _refused(WAITING_EVENT, refused)


def _balance(player: Player, payload: dict[str, Any]) -> dict[str, Any]:
    """`account:balance` {}: a page asks for its own balance when its socket (re)connects
    and when it comes back in front — the push it missed while away, or a change no
    running server was told of (docs/protocol.md, `account:balance`)."""
    with get_db().session() as s:
        return {"ok": True, "balance": ledger.user_balance(s, player.id)}


def online(user_ids: list[int]) -> set[int]:
    """Which of these users have a page open (in this process)."""
    presence = get_presence()
    return {u for u in user_ids if presence.sids(u)}


def init_app(app: Flask) -> None:
    app.extensions[EXTENSION] = AskLimits(app.config)
    protocol.on(ASK, _ask, required={"amount": int}, optional={"table": int})
    protocol.on(ANSWER, _answer, required={"id": int, "approve": bool})
    protocol.on(WAITING_EVENT, _waiting)
    protocol.on(BALANCE, _balance)
