"""The player's pages around the table: the table itself, the rules, settings, installing.

The table page is a shell: everything on it comes over Socket.IO (docs/protocol.md) and is
drawn by static/js. The rules are the seeds' Russian text (app/rules_text/<game>.md), told
for players in each other language of `LANGUAGES` (<game>.<lang>.md), chosen by `?lang=`.
The auto-count (C-3.9) reads the engine's own scoring table from /scores/<game>.json, so
the browser never restates a rule.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, abort, jsonify, render_template, request

from app import i18n, ledger
from app.auth.next import safe_next
from app.auth.service import current_user, login_required
from app.chat import PHRASES
from app.engine.games import GAMES, SCORERS
from app.engine.scoring import ABSOLUTE_KEY
from app.forms import form_error_key
from app.lobby.invites import invite_path, invite_url
from app.lobby.service import get_lobby
from app.models import HOUSE, Table, get_db
from app.table_rules import playable_variant

bp = Blueprint("pages", __name__)
RULES_DIR = Path(__file__).resolve().parent / "rules_text"
#: The pages' languages (static/js/i18n.js has a dictionary for each): Russian first
#: (docs/rules/ui.md), English, and Bulgarian, whose game svara32 is; each named in its own words.
LANGUAGES = {"ru": "Русский", "en": "English", "bg": "Български"}


# --- the rules as HTML -------------------------------------------------------------------

_INLINE = [
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"`(.+?)`"), r"<code>\1</code>"),
]


def _inline(text: str) -> str:
    out = html.escape(text, quote=False)
    for pattern, repl in _INLINE:
        out = pattern.sub(repl, out)
    return out


def markdown_html(text: str) -> str:
    """The small Markdown subset the rules files use: headings, lists, paragraphs, bold, code.

    Written here rather than pulled in as a dependency: the files are ours and use no more.
    """
    out: list[str] = []
    para: list[str] = []
    items: list[str] = []
    list_tag = ""

    def flush() -> None:
        nonlocal list_tag
        if para:
            out.append(f"<p>{_inline(' '.join(para))}</p>")
            para.clear()
        if items:
            out.append(f"<{list_tag}>" + "".join(f"<li>{i}</li>" for i in items) + f"</{list_tag}>")
            items.clear()
            list_tag = ""

    for raw in text.splitlines():
        line = raw.rstrip()
        heading = re.match(r"^(#{1,4}) (.*)$", line)
        bullet = re.match(r"^\s*- (.*)$", line)
        numbered = re.match(r"^\s*\d+\. (.*)$", line)
        if heading:
            flush()
            level = len(heading.group(1))
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif bullet or numbered:
            tag = "ul" if bullet else "ol"
            if para or (items and list_tag != tag):
                flush()
            list_tag = tag
            # Not typed (next line): the branch is taken only when one of the two matched.
            items.append(_inline((bullet or numbered).group(1)))  # type: ignore[union-attr]
        elif not line.strip():
            flush()
        elif items and raw.startswith("  "):
            items[-1] += " " + _inline(line.strip())  # a wrapped list item
        else:
            if items:
                flush()
            para.append(line.strip())
    flush()
    return "\n".join(out)


def rules_file(game: str, lang: str) -> Path:
    """The rules text of `game` in `lang`: the seeds' Russian is `<game>.md`."""
    return RULES_DIR / (f"{game}.md" if lang == "ru" else f"{game}.{lang}.md")


@cache
def rules_html(game: str, lang: str) -> str:
    """The rules of `game` in `lang` as HTML."""
    return markdown_html(rules_file(game, lang).read_text(encoding="utf-8"))


# --- the scoring table for the auto-count -------------------------------------------------


@cache
def score_table(game: str) -> dict[str, Any]:
    """Every hand of the game's deck in colex order of deck indices (what count.js indexes):
    its score key (points × 2; ABSOLUTE_KEY for the classic absolute hand) and its name."""
    scorer = SCORERS[game]
    deck = scorer.deck
    keys: list[int] = []
    labels: dict[int, str] = {}
    for c in range(len(deck)):
        for b in range(c):
            for a in range(b):
                score = scorer.score((deck[a], deck[b], deck[c]))
                if score.label and not score.absolute:
                    labels[len(keys)] = score.label
                keys.append(score.key)
    return {
        "game": game,
        "deck": [str(card) for card in deck],
        "keys": keys,
        "labels": labels,
        "absolute_key": ABSOLUTE_KEY,
    }


# --- routes ------------------------------------------------------------------------------


def _game(game: str) -> str:
    if game not in GAMES:
        abort(404)
    return game


@bp.route("/table/<id:table_id>")
@login_required
def table(table_id: int) -> Any:
    """The table page: a shell that joins the table over Socket.IO (the socket needs the
    session too, so a visitor logs in first and comes back). A table that plays from stacks
    (S-1.5) gives the page its buy-in range for «Сесть за стол»."""
    user = current_user()
    assert user is not None and user.id is not None
    if not get_lobby().access.may_enter(table_id, user.id):  # a private table: as if none
        abort(404)
    with get_db().reading() as s:
        row = s.get(Table, table_id)
        variant = None if row is None or row.closed else playable_variant(s, row)
        if row is None or variant is None:  # none, closed, or rules this version refuses
            abort(404)
        invite = invite_path(row.invite) if row.private and row.invite else None
    buy_in = None
    balance = None
    if "buy_in_min" in variant.rules:
        ante = variant["ante"]
        buy_in = (variant["buy_in_min"] * ante, variant["buy_in_max"] * ante)
        with get_db().reading() as s:  # the dialog says what the account holds
            balance = ledger.user_balance(s, user.id)
    return render_template(
        "table.html",
        table_id=table_id,
        phrases=PHRASES,
        buy_in=buy_in,
        balance=balance,
        # The host's table menu (static/js/host.js); the server refuses it to anyone else.
        may_host=(may_host := get_lobby().access.may_host(table_id, user.id)),
        # A private table's link in its host's menu, to call one more friend from the table.
        host_invite=invite_url(invite) if invite and may_host else None,
    )


@bp.route("/rules")
@bp.route("/rules/<game>")
def rules(game: str = "") -> Any:
    """The rules in the language of `?lang=`, the whole page in it; without one (or with an
    unknown one) the page is Russian until the browser sees the device's language and asks
    for that (static/js/app.js), so a bare /rules link follows the language switch; a bare
    /rules is the first game's."""
    game = _game(game or next(iter(GAMES)))
    asked = request.args.get("lang", "")
    lang = asked if asked in LANGUAGES else "ru"
    return render_template(
        "rules.html",
        game=game,
        lang=lang,
        page_lang=lang if asked in LANGUAGES else "",
        games={name: g.title for name, g in GAMES.items()},
        body=rules_html(game, lang),
    )


@bp.route("/settings")
def settings() -> Any:
    """The device's settings; a visitor on his way in (an invite's `next`) keeps it: the
    language chosen, «Вход» and «Регистрация» still lead to the table he was asked to."""
    return render_template("settings.html", next=safe_next(request.args.get("next")))


def browser_of(user_agent: str) -> str:
    """Which install steps to put first: Telegram's in-app browser cannot install at all
    (C §9: «Сначала откройте обычный браузер»), then iPhone Safari, else Android Chrome."""
    ua = user_agent or ""
    if "Telegram" in ua:
        return "telegram"
    if re.search(r"iPhone|iPad|iPod", ua):
        return "iphone"
    if "Android" in ua:
        return "android"
    return "other"


@bp.route("/install")
def install() -> Any:
    return render_template("install.html", browser=browser_of(request.user_agent.string))


@bp.route("/scores/<game>.json")
def scores(game: str) -> Any:
    response = jsonify(score_table(_game(game)))
    response.cache_control.public = True
    response.cache_control.max_age = 86400
    return response


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.jinja_env.globals["form_error_key"] = form_error_key
    app.jinja_env.globals["languages"] = LANGUAGES
    # Amounts as every page writes them (app/i18n.py, static/js/i18n.js `money`).
    app.jinja_env.globals["money"] = i18n.money
    app.jinja_env.globals["amount"] = i18n.amount  # a range's first end: «200–1 000 ₽»
    app.jinja_env.globals["signed_money"] = i18n.signed_money
    app.jinja_env.globals["variant_title"] = i18n.variant_title
    app.jinja_env.globals["utc_iso"] = i18n.utc_iso
    app.jinja_env.globals["house"] = HOUSE
