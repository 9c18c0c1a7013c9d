"""The hand file (docs/rules/hand-file.md, format `svara-hand/1`): read, check, replay, write.

Replay and live play run the same engine: a hand file is the seats, the dealer, the dark
choice, the deals and the actions, fed to the game's `Hand` one action at a time.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from . import games
from .cards import Card, CardError, commitment, parse_cards
from .fairness import FairDeals, FairnessError, deal_problem, read_seeds
from .games import PRESETS, SCORERS, get_variant
from .hand import Action, Deal, DealSource, Hand, PlayerSeed, RuleError, Seat, shuffled_deals
from .variants import Variant, VariantError

FORMAT = "svara-hand/1"


class HandFileError(ValueError):
    """The file is not a valid hand file (exit status 2 in the CLI)."""


class ReplayError(Exception):
    """The engine refused an action, or the actions leave the hand unfinished (exit 3)."""

    def __init__(self, step: int | None, player: str | None, message: str):
        super().__init__(message)
        self.step, self.player, self.message = step, player, message

    def as_json(self) -> dict[str, Any]:
        return {"step": self.step, "player": self.player, "message": self.message}


@dataclass(frozen=True)
class HandFile:
    variant: Variant
    seats: tuple[Seat, ...]
    dealer: str
    dark: str | None
    deals: tuple[Deal, ...]
    actions: tuple[Action, ...]


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise HandFileError(message)


def _int(value: Any, what: str) -> int:
    _require(
        isinstance(value, int) and not isinstance(value, bool), f"{what} must be a whole number"
    )
    return value


def parse(doc: Any) -> HandFile:
    """Check a decoded JSON document against the format; HandFileError says what is wrong."""
    _require(isinstance(doc, dict), "a hand file is a JSON object")
    _require(doc.get("format") == FORMAT, f'"format" must be "{FORMAT}"')
    rules = doc.get("rules", {})
    _require(isinstance(rules, dict), '"rules" must be an object')
    try:
        variant = get_variant(str(doc.get("variant")), rules)
    except VariantError as e:
        raise HandFileError(str(e)) from None

    players = doc.get("players")
    _require(isinstance(players, list) and len(players) >= 2, '"players" must list at least two')
    seats = []
    for i, p in enumerate(players):
        _require(
            isinstance(p, dict) and isinstance(p.get("name"), str) and p["name"],
            f"players[{i}] needs a name",
        )
        seats.append(Seat(p["name"], _int(p.get("balance"), f"players[{i}].balance")))
    names = [s.name for s in seats]
    _require(len(set(names)) == len(names), "player names must be distinct")
    _require(len(seats) <= variant["seats"], f"{variant.name} seats at most {variant['seats']}")

    dealer = doc.get("dealer")
    _require(dealer in names, '"dealer" must name one of the players')
    dark = doc.get("dark")
    _require(dark is None or dark in names, '"dark" must name one of the players')

    try:  # the participants' shuffle seeds (docs/fairness.md); older files have none
        seeds = read_seeds(doc.get("seeds"), names)
    except FairnessError as e:
        raise HandFileError(str(e)) from None

    raw_deals = doc.get("deals")
    _require(isinstance(raw_deals, list) and bool(raw_deals), '"deals" must list at least one deal')
    scorer = SCORERS[variant.game]
    deals = []
    for d, raw in enumerate(raw_deals):
        _require(isinstance(raw, dict), f"deals[{d}] must be an object")
        raw = dict(raw)
        commit, seed = raw.pop("commit", None), raw.pop("seed", None)
        raw.pop("order", None)  # a player's copy names the dealing order (fairness.md)
        cards = {}
        for name, texts in raw.items():
            _require(name in names, f"deals[{d}] names unknown player {name!r}")
            _require(isinstance(texts, list), f"deals[{d}].{name} must be a list of cards")
            try:
                cards[name] = parse_cards(texts)
                scorer.check_hand(cards[name])
            except CardError as e:
                raise HandFileError(f"deals[{d}].{name}: {e}") from None
        all_cards = [c for hand in cards.values() for c in hand]
        _require(len(set(all_cards)) == len(all_cards), f"deals[{d}] deals a card twice")
        _require(
            seed is None or commit is None or commitment(seed) == commit,
            f"deals[{d}]: the seed does not open the commitment",
        )
        deals.append(Deal(cards, commit, seed, seeds if commit else None))

    raw_actions = doc.get("actions", [])
    _require(isinstance(raw_actions, list), '"actions" must be a list')
    actions = []
    for i, a in enumerate(raw_actions):
        _require(isinstance(a, dict), f"actions[{i}] must be an object")
        extra = set(a) - {"player", "do", "to", "deal"}
        _require(not extra, f"actions[{i}] has unknown keys: {', '.join(sorted(extra))}")
        _require(a.get("player") in names, f"actions[{i}] names an unknown player")
        _require(isinstance(a.get("do"), str), f'actions[{i}] needs "do"')
        to = a.get("to")
        if to is not None:
            _int(to, f"actions[{i}].to")
        deal = a.get("deal")
        _require(deal in (None, "cook", "split"), f'actions[{i}].deal must be "cook" or "split"')
        actions.append(Action(a["player"], a["do"], to, deal))
    return HandFile(variant, tuple(seats), dealer, dark, tuple(deals), tuple(actions))


def _scripted(deals: Sequence[Deal]) -> Iterator[Deal]:
    yield from deals
    while True:
        raise RuleError(f"the hand needs deal {len(deals)}, but the file has only {len(deals)}")


def start(hf: HandFile) -> Hand:
    """The hand of a file, before its actions, drawing its deals from the file in order."""
    pending = _scripted(hf.deals)
    cls = games.hand_class(hf.variant.game)
    return cls(hf.variant, hf.seats, hf.dealer, lambda players: next(pending), hf.dark)


def replay(hf: HandFile) -> Hand:
    """Run every action; ReplayError on the first refused one or an unfinished hand."""
    try:
        hand = start(hf)
    except RuleError as e:
        raise ReplayError(None, e.player, e.message) from None
    for step, action in enumerate(hf.actions):
        if hand.finished:
            raise ReplayError(step, action.player, "the hand is already over")
        try:
            hand.act(action)
        except RuleError as e:
            raise ReplayError(step, action.player, e.message) from None
    if not hand.finished:
        waiting = ", ".join(hand.awaiting()) or "nobody"
        raise ReplayError(None, None, f"the hand is unfinished: waiting for {waiting}")
    for d, deal in enumerate(hand.deals):
        if deal.seed and deal.commit:
            problem = deal_problem(SCORERS[hf.variant.game].deck, deal, d)
            if problem:
                raise ReplayError(None, None, problem)
    return hand


def continued_deals(stored: Sequence[Deal], deck: Sequence[Card]) -> DealSource:
    """The recorded deals of a hand first (replay after a restart), then the deals it still
    needs: from its seeds (docs/fairness.md), or fresh shuffles for an older hand."""
    pending = deque(stored)
    fresh = FairDeals.after(stored, deck) or shuffled_deals(deck)

    def source(players: Sequence[str]) -> Deal:
        return pending.popleft() if pending else fresh(players)

    return source


def replay_record(doc: dict[str, Any]) -> tuple[Hand, list[Action]]:
    """A hand in play rebuilt from its stored record (C-8.5): the same seats, deals and
    actions, then fresh shuffles for the deals it still needs."""
    hf = parse(doc)
    game = games.game(hf.variant.game)
    deals = continued_deals(hf.deals, game.scorer.deck)
    hand = game.hand(hf.variant, hf.seats, hf.dealer, deals, hf.dark)
    for action in hf.actions:
        hand.act(action)
    return hand, list(hf.actions)


def replay_summary(hand: Hand) -> dict[str, Any]:
    """The success object of `svara replay` (docs/rules/hand-file.md)."""
    result = hand.result()
    return {
        "ok": True,
        "balances": result.balances,
        "rake": result.rake,
        "winners": result.winners,
        "svaras": result.svaras,
        "events": hand.public_events(),
    }


def seed_json(seed: PlayerSeed) -> dict[str, Any]:
    """One entry of a hand file's `seeds` (docs/fairness.md): who gave it (`kind`), and
    `drawn` for a seed derived from the server's."""
    out: dict[str, Any] = {"name": seed.name, "seed": seed.seed}
    if seed.kind is not None:
        out["kind"] = seed.kind
    if seed.drawn:
        out["drawn"] = True
    return out


def record(hand: Hand, actions: Sequence[Action]) -> dict[str, Any]:
    """The stored hand file of a played hand: what `replay` turns back into the same hand."""
    variant = hand.variant
    base = PRESETS.get(variant.name) or PRESETS[variant.game]
    rules = {
        k: list(v) if isinstance(v, tuple) else v
        for k, v in variant.rules.items()
        if base.rules[k] != v
    }
    deals = []
    for deal in hand.deals:
        out: dict[str, Any] = {name: [str(c) for c in cards] for name, cards in deal.cards.items()}
        if deal.commit:
            out["commit"], out["seed"] = deal.commit, deal.seed
        deals.append(out)
    doc: dict[str, Any] = {
        "format": FORMAT,
        "variant": base.name,
        "rules": rules,
        "players": [{"name": s.name, "balance": s.balance} for s in hand.seats],
        "dealer": hand.dealer,
    }
    if hand.dark_choice is not None:
        doc["dark"] = hand.dark_choice
    seeds = hand.deals[0].seeds if hand.deals else None
    if seeds is not None:
        doc["seeds"] = [seed_json(s) for s in seeds]
    doc["deals"] = deals
    doc["actions"] = [a.as_json() for a in actions]
    return doc
