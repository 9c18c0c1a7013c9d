"""A player's hands as he may see them: the list, the replay, his copy of the hand file, his
figures and a table's settle-up.

What a player saw is decided by the engine alone: the replay runs the stored hand file
through the game's `Hand` (handfile.start, the same code as live play) and takes, after each
action, `view(name)` — his own cards, the cards shown at the showdown, a look's hands only if
he was in the look (C-4.19). Nobody else's eyes exist here: a user not in the hand gets
nothing (the pages answer 404), an administrator gets the public `view(None)` in the replay
and the stored file as it is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo
from typing import Any, NamedTuple

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.admin.settle import settle_up
from app.engine import handfile
from app.engine.games import GAMES, PRESETS, get_variant
from app.engine.hand import Hand, RuleError
from app.i18n import DEFAULT, card_name, local_time, money, translate, variant_title
from app.models import (
    CANCELLED,
    FINISHED,
    POT,
    STACK,
    USER,
    Account,
    HandRecord,
    LedgerEntry,
    Table,
    User,
)

PAGE = 20
ENDED = (FINISHED, CANCELLED)


class Missing(LookupError):
    """No such hand for this user (the page answers 404, never 403: it does not say that
    the hand exists)."""


class Row(NamedTuple):
    """One hand in «Мои раздачи»: when, where, which game (the table's variant and its
    game, for its title in the page's words), his result."""

    id: int
    started: datetime
    table: str
    variant: str
    game: str
    status: str
    net: int
    revealed: bool  # its shuffle's seeds are shown (`seeds_shown`)
    checkable: bool  # dealt with the players' seeds (`fair_of`): the page can check it


def game_of(doc: dict[str, Any] | None) -> str:
    """The game a stored hand was played in: its file names the preset it was played
    under (handfile.record), a custom variant's base included."""
    variant = PRESETS.get(str((doc or {}).get("variant")))
    return variant.game if variant else ""


def _mine(user_id: int) -> Any:
    """The user's result per hand: his balance and stack rows of each hand he paid into or
    was paid from (every participant pays the ante: C-1.8, S-1.2, B-1.2)."""
    return (
        select(col(LedgerEntry.hand_id), func.sum(LedgerEntry.amount).label("net"))
        .join(Account, col(Account.id) == LedgerEntry.account_id)
        .where(
            Account.user_id == user_id,
            col(Account.kind).in_((USER, STACK)),
            col(LedgerEntry.hand_id).is_not(None),
        )
        .group_by(col(LedgerEntry.hand_id))
        .subquery()
    )


def my_hands(s: Session, user: User, page: int = 1, per_page: int = PAGE) -> tuple[list[Row], bool]:
    """The ended hands the user played, newest first, one page; and whether more follow."""
    assert user.id is not None
    mine = _mine(user.id)
    rows = s.exec(
        select(HandRecord, Table, mine.c.net)
        .join(mine, mine.c.hand_id == col(HandRecord.id))
        .join(Table, col(Table.id) == HandRecord.table_id)
        .where(col(HandRecord.status).in_(ENDED))
        .order_by(col(HandRecord.id).desc())
        .offset((page - 1) * per_page)
        .limit(per_page + 1)
    ).all()
    out = []
    for h, t, net in rows:
        assert h.id is not None  # sqlmodel types a row's id as optional; a stored row has one
        shown = h.seeds_revealed or t.closed
        game = game_of(h.hand_file)
        out.append(Row(h.id, h.started, t.name, t.variant, game, h.status, net, shown, _fair(h)))
    return out[:per_page], len(out) > per_page


def _fair(hand: HandRecord) -> bool:
    """Dealt with the players' seeds and a commitment: the page can check it."""
    doc = hand.hand_file or {}
    return "seeds" in doc and "commit" in (doc.get("deals") or [{}])[0]


def players(doc: dict[str, Any]) -> list[str]:
    return [p["name"] for p in doc.get("players", [])]


def open_hand(s: Session, user: User, hand_id: int) -> tuple[HandRecord, str, str | None]:
    """The ended hand, its table's name and whose eyes it is seen with: the user's if he
    played in it, None (the public view) for an administrator; Missing for anyone else."""
    hand = s.get(HandRecord, hand_id)
    if hand is None or hand.hand_file is None or hand.status not in ENDED:
        raise Missing(hand_id)
    if user.name in players(hand.hand_file):
        viewer: str | None = user.name
    elif user.is_admin:
        viewer = None
    else:
        raise Missing(hand_id)
    table = s.get(Table, hand.table_id)
    return hand, table.name if table else "", viewer


class Step(NamedTuple):
    """The hand after `action` (None: as dealt), with the deal it is in."""

    action: dict[str, Any] | None
    deal: int
    view: dict[str, Any]


def steps(doc: dict[str, Any], viewer: str | None) -> list[Step]:
    """The hand as `viewer` saw it at the deal and after each action (the engine's view)."""
    hf = handfile.parse(doc)
    hand = handfile.start(hf)
    out = [_step(hand, None, viewer)]
    for action in hf.actions:
        if hand.finished:
            break
        hand.act(action)
        out.append(_step(hand, action.as_json(), viewer))
    return out


def _step(hand: Hand, action: dict[str, Any] | None, viewer: str | None) -> Step:
    view = hand.view(viewer)
    view.pop("legal", None)  # what he could have done is no part of the record
    return Step(action, len(hand.deals) - 1, view)


def seeds_shown(s: Session, hand: HandRecord) -> bool:
    """Whether the hand's shuffle seeds may be shown to its players (docs/fairness.md,
    «When the seeds are revealed»): its table closed, or every person of it left the table
    (app/tables/fair.py `Reveal`). Before, they would show folded cards (C-6.2)."""
    table = s.get(Table, hand.table_id)
    return hand.seeds_revealed or (table is not None and table.closed)


def fair_of(doc: dict[str, Any], status: str, revealed: bool) -> dict[str, Any] | None:
    """What the page needs to check the shuffle in the browser (static/js/fair.js): the
    commitment, the dealer and the dealing orders, and the seeds once they are revealed
    (`pending` until then); None for a hand dealt before the players' seeds
    (svara-shuffle/1, `svara verify --legacy`) or without a commitment."""
    first = doc["deals"][0]
    if "seeds" not in doc or "commit" not in first or status not in ENDED:
        return None
    out: dict[str, Any] = {
        "game": get_variant(doc["variant"], doc.get("rules") or {}).game,
        "commit": first["commit"],
        "dealer": doc["dealer"],
        "deals": [[k for k in deal if k not in ("commit", "seed")] for deal in doc["deals"]],
        "pending": not revealed,
    }
    if revealed:
        out.update(seed=first.get("seed"), seeds=doc["seeds"])
    return out


def seen_cards(all_steps: Sequence[Step], doc: dict[str, Any]) -> list[dict[str, list[str | None]]]:
    """Per deal, each player's cards as far as the viewer saw them (None: never seen): his
    own, those shown, and a look's two hands (`look_cards`, only in its players' views, in
    the events new at a step). Only the deal's own players count: one left out of a Svara
    re-deal may still show the cards of the deal before (static/js/fair.js `addSeen`)."""
    seen: list[dict[str, list[str | None]]] = []
    known = 0
    for step in all_steps:
        while len(seen) <= step.deal:
            seen.append({})
        shown, dealt = seen[step.deal], doc["deals"][step.deal]
        for p in step.view["players"]:
            for k, c in enumerate(p.get("cards") or []):
                if c is not None and p["name"] in dealt:
                    shown.setdefault(p["name"], [None, None, None])[k] = c
        events = step.view.get("events", [])
        for event in events[known:]:
            if isinstance(event.get("cards"), dict):
                for name, cards in event["cards"].items():
                    if cards and name in dealt:
                        shown[name] = list(cards)
        known = len(events)
    return seen


def players_copy(
    doc: dict[str, Any], viewer: str | None, status: str, revealed: bool
) -> dict[str, Any]:
    """The hand file with only what `viewer` may see (docs/fairness.md, «A player's copy»):
    per deal its dealing order, the cards he saw (null for a card he did not), the
    commitment and, once they are revealed (`seeds_shown`), the seeds. An administrator's
    is the stored file."""
    if viewer is None:
        return doc
    try:
        seen = seen_cards(steps(doc, viewer), doc)
    except (handfile.HandFileError, RuleError):  # the engine refuses the stored file: the
        seen = []  # seeds and commitments alone, and `svara verify` says what is wrong
    deals = []
    for d, deal in enumerate(doc["deals"]):
        out: dict[str, Any] = {"order": [k for k in deal if k not in ("commit", "seed")]}
        out.update(seen[d] if d < len(seen) else {})
        if "commit" in deal:
            out["commit"] = deal["commit"]
            if status in ENDED and revealed:
                out["seed"] = deal.get("seed")
        deals.append(out)
    copy = {k: v for k, v in doc.items() if k not in ("deals", "actions", "seeds")}
    if status in ENDED and revealed and "seeds" in doc:
        copy["seeds"] = doc["seeds"]
    return {**copy, "deals": deals, "actions": doc.get("actions", [])}


def _action_words(lang: str, game: str, action: dict[str, Any]) -> str:
    """An action as the table's history says it (static/js/render.js `actionLabel`): the
    game's word, the level it goes to where the word does not say it."""
    do, to = action.get("do"), action.get("to")
    if do == "timeout":
        return translate(lang, "timeout")
    own = GAMES[game].action_words(str(do), to, action.get("deal")) if game in GAMES else None
    if own is not None:
        key, params = own
        return translate(lang, key, **params)
    word = translate(lang, f"{game}.{do}")
    return f"{word} {to}" if to is not None else word


def as_text(
    doc: dict[str, Any],
    hand: HandRecord,
    table: str,
    viewer: str | None,
    revealed: bool,
    lang: str = DEFAULT,
    zone: tzinfo = UTC,
) -> str:
    """The hand as readable text in the words of `lang` (the pages' vocabulary,
    app/i18n.py): who sat with what, each action with the pot after it, the cards the viewer
    saw in the deck's own letters, the result and — once `revealed` (docs/fairness.md) — the
    shuffle's seeds; the time in the viewer's `zone`, its offset written."""
    try:
        all_steps = steps(doc, viewer)
    except (handfile.HandFileError, RuleError) as e:
        all_steps, refused = [], str(e)
    else:
        refused = ""
    game = game_of(doc)

    def t(key: str, **params: object) -> str:
        return translate(lang, key, **params)

    def cards(cs: Sequence[str | None]) -> str:
        return " ".join(card_name(c, lang) if c else "??" for c in cs)

    title = variant_title(lang, game, str(doc.get("variant"))) if game else doc.get("variant")
    lines = [
        f"{t('hand.title', id=hand.id)} · {table} · {title} · {local_time(hand.started, zone)}",
        f"{t('text.players')}: "
        + ", ".join(f"{p['name']} ({money(p['balance'])})" for p in doc["players"]),
        f"{t('dealer_title')}: {doc['dealer']}",
    ]
    for d, seen in enumerate(seen_cards(all_steps, doc)):
        shown = "; ".join(f"{n}: {cards(cs)}" for n, cs in seen.items())
        lines.append(f"{t('hand.dealt', n=d + 1)}: {shown or '—'}")
    for step in all_steps[1:]:
        a = step.action or {}
        pot = t("hand.pot", pot=money(step.view["pot"]))
        lines.append(f"  {a.get('player')}: {_action_words(lang, game, a)}  ({pot})")
    if refused:
        lines.append(t("text.refused", why=refused))
    result = all_steps[-1].view.get("result") if all_steps else None
    if result:
        lines.append(f"{t('text.winners')}: " + ", ".join(result["winners"]))
        lines.append(
            f"{t('text.balances')}: "
            + ", ".join(f"{n} {money(b)}" for n, b in result["balances"].items())
        )
    first = doc["deals"][0]
    if "commit" in first:
        lines.append(f"{t('text.commit')}: {first['commit']}")
        if not revealed and viewer is not None:
            lines.append(t("text.seeds_later"))
        else:
            lines.append(f"{t('text.server_seed')}: {first.get('seed')}")
            for seed in doc.get("seeds", []):
                kind = seed.get("kind") or ("drawn" if seed.get("drawn") else "")
                key = "text.drawn" if kind == "drawn" else f"text.kind.{kind}"
                said = t(key) if kind else ""
                lines.append(
                    f"{t('text.seed_of', name=seed['name'])}: {seed['seed']}"
                    + (f" ({said})" if said else "")
                )
    return "\n".join(lines) + "\n"


# --- figures -------------------------------------------------------------------------------


class Stats(NamedTuple):
    hands: int
    wins: int
    net: int
    svaras: int
    biggest_pot: int


def stats(s: Session, user: User, since: datetime, until: datetime | None = None) -> Stats:
    """The user's hands started in [since, until): how many, how many won (a positive
    result), his net, the Svaras dealt in them (re-deals) and the biggest pot (all paid in)."""
    assert user.id is not None
    mine = _mine(user.id)
    query = (
        select(HandRecord, mine.c.net)
        .join(mine, mine.c.hand_id == col(HandRecord.id))
        .where(col(HandRecord.status).in_(ENDED), HandRecord.started >= since)
    )
    if until is not None:
        query = query.where(HandRecord.started < until)
    found = s.exec(query).all()
    ids = [h.id for h, _ in found]
    pots: dict[int, int] = defaultdict(int)
    if ids:
        for hand_id, amount in s.exec(
            select(LedgerEntry.hand_id, LedgerEntry.amount)
            .join(Account, col(Account.id) == LedgerEntry.account_id)
            .where(Account.kind == POT, col(LedgerEntry.hand_id).in_(ids), LedgerEntry.amount > 0)
        ):
            # Not typed (next line): a pot's rows always carry their hand (the query's IN).
            pots[hand_id] += amount  # type: ignore[index]
    return Stats(
        hands=len(found),
        wins=sum(1 for _, net in found if net > 0),
        net=sum(net for _, net in found),
        svaras=sum(len((h.hand_file or {}).get("deals", [])) - 1 for h, _ in found if h.hand_file),
        biggest_pot=max(pots.values(), default=0),
    )


def table_settle(
    s: Session, user: User, table_id: int, since: datetime, until: datetime
) -> tuple[Table, dict[str, Any]]:
    """One night's settle-up of one table (the same service as `svara admin settle`), for a
    player who played there in that night or an administrator; Missing for anyone else."""
    table = s.get(Table, table_id)
    if table is None:
        raise Missing(table_id)
    report = settle_up(s, since, until, table_id=table_id)
    if user.name not in report["results"] and not user.is_admin:
        raise Missing(table_id)
    return table, report
