"""Bots at live tables (docs/rules.md, «Bots»): the practice table, seat fillers, their manners.

- `POST /practice`: one click from the lobby to a private practice table (B-1.4: the
  `svara32-practice` preset, 500 practice chips each, ante 10) with the player seated
  against «Гэри»; practice chips never touch the balance (app/ledger.py).
- `table:bots` {table, fill}: the table's creator fills its free seats with bots (one stays
  for a person: `BotSeats.room`), or sends them away (they play out a hand in progress first).
- `fill_table(app, table_id, count)`: the service `svara admin table create --bots N` calls
  in the serving process; `start(app)` seats the bots of open tables after a restart.
- Bots step aside between hands when a person queues for a seat (app/bots/seats.py).
"""

from __future__ import annotations

import json
from typing import Any

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    get_flashed_messages,
    redirect,
    request,
    url_for,
)
from sqlmodel import col, select

from app import ledger, protocol
from app.auth.presence import Player
from app.auth.roster import ROSTER
from app.auth.service import current_user, login_required
from app.engine.games import PRESETS, get_variant
from app.lobby.service import EXTENSION as LOBBY
from app.lobby.service import create_table
from app.models import Table
from app.models.db import EXTENSION as DB
from app.tables import EXTENSION as TABLES
from app.tables.model import PLAYING, Person, TableError
from app.tables.runtime import LiveTable
from app.tables.view import Snapshot

from .seats import BotSeats

EXTENSION = "svara.bots"


def practice_preset() -> str:
    """The preset of «Тренировка с ботом»: the one whose rules say practice chips (B-1.4)."""
    return next(v.name for v in PRESETS.values() if v.rules.get("practice"))


BOTS_SAID = "bots"  # the flashed refusal of the lobby's bots switch
bp = Blueprint("bots", __name__)


def _bots() -> BotSeats:
    return current_app.extensions[EXTENSION]


def live_table(app: Flask, table_id: int) -> LiveTable:
    """The live table (TableError `not_found` for a closed one)."""
    return app.extensions[TABLES].get(table_id)


def fill_table(app: Flask, table_id: int, count: int | None = None) -> list[str]:
    """Seat `count` bots (every free seat when None) at an open table; their names."""
    live = live_table(app, table_id)
    names = app.extensions[EXTENSION].fill(live, count)
    app.extensions[LOBBY].publish(table_id)
    return names


@bp.post("/practice")
@login_required
def practice() -> Any:
    """B-1.4: the player's own practice table against «Гэри» (reused while it is open),
    the player already seated with his practice chips."""
    user = current_user()
    assert user is not None and user.id is not None
    db = current_app.extensions[DB]
    with db.session() as s:
        table = s.exec(
            select(Table).where(
                Table.variant == practice_preset(), Table.created_by == user.id, ~col(Table.closed)
            )
        ).first()
        if table is None:
            preset = get_variant(practice_preset())
            stack = preset["practice_stack"] // preset["ante"]  # in antes: 500 chips each
            table = create_table(
                s,
                f"Практика · {user.name}",
                practice_preset(),
                private=True,
                created_by=user.id,
                rules={"buy_in_min": stack, "buy_in_max": stack},
            )
            table.bots = 1
            s.add(table)
        table_id = table.id
    assert table_id is not None
    live = live_table(current_app, table_id)
    person = Person(user.id, user.name)
    if live.member(user.name) is not None and _match_over(live.snapshot()):
        live.stand(person)
    if live.member(user.name) is None and not live.queued(user.name):
        live.sit(person, None, None)  # a new match: fresh practice chips for both
        _bots().clear(live)
    if not _bots().at(live):
        _bots().fill(live, 1)
    return redirect(url_for("pages.table", table_id=table_id))


def _match_over(snap: Snapshot) -> bool:
    """Between hands, the person or the bot lacks the chips for another hand (B-1.4: the
    match ended, whoever won it)."""
    return snap.phase != PLAYING and any(
        not snap.hand_cls.playable(snap.variant, snap.money.get(m.name, 0)) for m in snap.members()
    )


@bp.get("/bots.json")
def roster() -> Any:
    """The bots' names and avatars, for the table page to draw them."""
    return {"bots": [{"name": name, "avatar": avatar} for name, avatar in ROSTER.items()]}


def toggle(user: Person, table_id: int, fill: bool) -> list[str]:
    """The host's switch (the lobby's, the table menu's): fill every free seat with bots,
    or send them all away; the names of the bots seated or sent, told at the table as the
    host's doing. TableError (`not_host`) unless the user is the table's creator or an
    administrator (app/lobby/invites.py `Access.may_host`)."""
    app: Flask = current_app
    if not app.extensions[LOBBY].access.may_host(table_id, user.id):
        raise TableError("not_host", "only the table's creator or an administrator seats bots")
    live = live_table(app, table_id)
    if fill and live.snapshot().host["locked"]:
        raise TableError("not_now", "the host locked the seats: unlock them first")
    if fill:
        names = fill_table(app, live.id)
        snap = live.snapshot()
        if not names and _bots().room(snap) and not snap.variant.rules.get("practice"):
            raise house_short(app, _bots().stake(snap))
    else:
        names = _bots().clear(live)
        app.extensions[LOBBY].publish(live.id)
    if names:
        live.host(user, "bots_fill" if fill else "bots_clear")
    return names


def _toggle(player: Player, payload: dict[str, Any]) -> dict[str, Any]:
    """`table:bots` {table, fill} (docs/protocol.md)."""
    try:
        person = Person(player.id, player.name)
        return {"ok": True, "bots": toggle(person, payload["table"], payload["fill"])}
    except TableError as refused:
        return {**protocol.refuse("table:bots", refused.reason), "code": refused.code}


@bp.post("/tables/<id:table_id>/bots")
@login_required
def toggle_form(table_id: int) -> Any:
    """The lobby's switch (form field `fill`: 1 or 0) for the creator's own tables."""
    user = current_user()
    assert user is not None and user.id is not None
    try:
        toggle(Person(user.id, user.name), table_id, request.form.get("fill") == "1")
    except TableError as refused:
        # Said in place, under the table's row of «Мои столы» (`own_tables`), in the page's
        # words: how much the house has, what a bot needs, who can fund it.
        flash(json.dumps({"table": table_id, "code": refused.code, **refused.fields}), BOTS_SAID)
        return redirect(url_for("lobby.index", _anchor="own-tables"))
    return redirect(url_for("lobby.index"))


def house_short(app: Flask, need: int) -> TableError:
    """The refusal of bots the house cannot stake (`house`): what it holds, what one
    needs (docs/rules.md, «Bots»)."""
    with app.extensions[DB].session() as s:
        house = ledger.balance(s, ledger.house_account(s))
    return TableError(
        "house",
        f"the house has {house}, a bot here needs {need}: an administrator funds the house "
        "(the host's page /admin, svara admin house grant)",
        fields={"house": house, "need": need},
    )


@bp.app_template_global()
def own_tables() -> list[dict[str, Any]]:
    """The open tables the logged-in user created (not practice ones), with their bots
    seated: the lobby shows them with the bots switch."""
    user = current_user()
    if user is None:
        return []
    bots: BotSeats = _bots()
    with current_app.extensions[DB].reading() as s:
        tables = s.exec(
            select(Table).where(
                Table.created_by == user.id, ~col(Table.closed), Table.variant != practice_preset()
            )
        ).all()
        rows = [(t.id, t.name) for t in tables]
    live = {t.id: t for t in current_app.extensions[TABLES].live()}
    refused = {}
    for message in get_flashed_messages(category_filter=[BOTS_SAID]):
        said = json.loads(str(message))
        refused[said.pop("table")] = said
    return [
        {
            "id": i,
            "name": name,
            "bots": len(bots.at(live[i])) if i in live else 0,
            "refused": refused.get(i),
        }
        for i, name in rows
    ]


def init_app(app: Flask) -> None:
    think = app.config["BOT_THINK"]
    low, high = (think, think) if isinstance(think, int | float) else think
    bots = app.extensions[EXTENSION] = BotSeats(
        app.extensions[TABLES], app.extensions[DB], (float(low), float(high))
    )
    app.extensions[TABLES].hooks.closed.append(bots.closed)
    app.register_blueprint(bp)
    protocol.on("table:bots", _toggle, required={"table": int, "fill": bool})


def start(app: Flask) -> None:
    """The serving process, after the tables' recovery: bots of a recovered hand play on,
    and every open table created with bots gets them seated."""
    with app.app_context():
        bots: BotSeats = app.extensions[EXTENSION]
        bots.serving = True
        for live in app.extensions[TABLES].live():
            bots.adopt(live)
        with app.extensions[DB].session() as s:
            wanted = {
                t.id: t.bots
                for t in s.exec(select(Table).where(~col(Table.closed), col(Table.bots) > 0))
            }
        for table_id, count in wanted.items():
            assert table_id is not None
            live = live_table(app, table_id)
            missing = count - len(bots.at(live))
            if missing > 0:
                bots.fill(live, missing)
        bots.return_idle()  # what bots kept when the server stopped goes back to the house
