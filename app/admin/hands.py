"""Hands as the administrator audits them: list, show the hand file, verify.

`verify` re-runs a stored hand file through the engine (app/engine/handfile.py: the same
code as live play), checks every deal against its shuffle commitment and seed, and compares
the money the rules move with the hand's rows in the ledger.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlmodel import Session, col, select

from app.engine import handfile
from app.engine.fairness import deal_problem
from app.engine.games import SCORERS
from app.engine.hand import RuleError
from app.models import (
    CANCELLED,
    FINISHED,
    HOUSE,
    POT,
    Account,
    HandRecord,
    LedgerEntry,
    Table,
    User,
)

from . import AdminError
from .tables import get_table
from .users import get_user

LIST_LIMIT = 50
Move = tuple[str, str, int, str]  # payer, payee, amount, kind


def get_hand(s: Session, hand_id: int) -> HandRecord:
    hand = s.get(HandRecord, hand_id)
    if hand is None:
        raise AdminError(f"no hand with id {hand_id}")
    return hand


def players(hand: HandRecord) -> list[str]:
    return [p["name"] for p in (hand.hand_file or {}).get("players", [])]


def hand_row(hand: HandRecord, table_name: str) -> dict[str, Any]:
    return {
        "id": hand.id,
        "table": hand.table_id,
        "table_name": table_name,
        "started": hand.started.isoformat(timespec="seconds"),
        "status": hand.status,
        "variant": (hand.hand_file or {}).get("variant"),
        "players": players(hand),
        "actions": len(hand.actions),
    }


def list_hands(
    s: Session, table: str | None = None, user: str | None = None, limit: int = LIST_LIMIT
) -> list[dict[str, Any]]:
    """The latest hands (newest first), of one table and/or with one player."""
    query = select(HandRecord, Table.name).join(Table, col(Table.id) == HandRecord.table_id)
    if table is not None:
        query = query.where(HandRecord.table_id == get_table(s, table).id)
    name = get_user(s, user).name if user is not None else None
    rows = []
    for hand, table_name in s.exec(query.order_by(col(HandRecord.id).desc())):
        if name is None or name in players(hand):
            rows.append(hand_row(hand, table_name))
            if len(rows) == limit:
                break
    return rows


def show_hand(s: Session, hand_id: int) -> dict[str, Any]:
    """The stored hand file (docs/rules/hand-file.md), as `svara replay` reads it."""
    hand = get_hand(s, hand_id)
    if hand.hand_file is None:
        raise AdminError(f"hand {hand_id} has no hand file")
    return hand.hand_file


def ledger_moves(s: Session, hand_id: int) -> list[Move]:
    """The hand's movements in the ledger as (payer, payee, amount, kind), in engine names."""
    names = dict(s.exec(select(User.id, User.name)).all())
    legs: dict[str, list[tuple[str, int, str]]] = {}
    for entry, account in s.exec(
        select(LedgerEntry, Account)
        .join(Account, col(Account.id) == LedgerEntry.account_id)
        .where(LedgerEntry.hand_id == hand_id)
        .order_by(col(LedgerEntry.id))
    ):
        party = (
            POT
            if account.kind == POT
            else HOUSE
            if account.kind == HOUSE
            else names[account.user_id]
        )
        legs.setdefault(entry.movement, []).append((party, entry.amount, entry.kind))
    moves = []
    for sides in legs.values():
        payer = next(p for p, amount, _ in sides if amount < 0)
        payee, amount, kind = next(side for side in sides if side[1] > 0)
        moves.append((payer, payee, amount, kind))
    return moves


def verify_hand(s: Session, hand_id: int) -> dict[str, Any]:
    """Replay, shuffle commitments and money; `ok` with the problems found, if any."""
    hand = get_hand(s, hand_id)
    doc = hand.hand_file
    if doc is None:
        raise AdminError(f"hand {hand_id} has no hand file")
    report: dict[str, Any] = {"hand": hand_id, "status": hand.status, "problems": []}
    problems: list[str] = report["problems"]
    try:
        hf = handfile.parse(doc)  # checks that each seed opens its commitment
    except handfile.HandFileError as e:
        problems.append(f"not a valid hand file: {e}")
        return {**report, "ok": False}
    deck = SCORERS[hf.variant.game].deck
    report["deals"] = len(hf.deals)
    for d, deal in enumerate(hf.deals):
        if problem := deal_problem(deck, deal, d):
            problems.append(problem)
    recorded = Counter(ledger_moves(s, hand_id))
    if hand.status == FINISHED:
        try:
            played = handfile.replay(hf)
        except handfile.ReplayError as e:
            problems.append(f"the replay fails: {e.as_json()}")
            return {**report, "ok": False}
        report["result"] = handfile.replay_summary(played)["balances"]
        engine = Counter((t.source, t.target, t.amount, t.kind) for t in played.transfers)
        if engine != recorded:
            missing = sorted((engine - recorded).elements())
            extra = sorted((recorded - engine).elements())
            problems.append(f"the ledger differs from the rules: missing {missing}, extra {extra}")
    else:  # in play or cancelled: the actions so far must still be legal
        try:
            handfile.replay_record(doc)
        except RuleError as e:
            problems.append(f"the replay fails: {e.message}")
        pot = sum(
            (amount if payee == POT else -amount if payer == POT else 0)
            for payer, payee, amount, _ in recorded.elements()
        )
        report["pot"] = pot
        if hand.status == CANCELLED and pot:
            problems.append(f"the cancelled hand still holds {pot} in its pot")
    return {**report, "ok": not problems}
