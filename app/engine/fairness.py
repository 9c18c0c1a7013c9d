"""The shuffle every player can check (docs/fairness.md, format `svara-fair/1`).

Before a hand the server draws a secret seed and publishes its commitment (SHA-256, the
same `commitment` as the single-seed shuffle of cards.py). Every participant then gives a
seed of his own: his page's, or, for a bot or a page that sent none, one derived from the
server seed (`drawn_seed`, marked `drawn`: fixed by the commitment, so not chosen later).
Deal d of the hand (0 the first deal, 1.. the Svara re-deals) is the deck shuffled by Fisher–Yates
(`cards.fisher_yates`) on 32-bit words of an HMAC-SHA-256 stream:

    K_d     = HMAC-SHA-256(key = server seed, msg = "svara-fair/1:" d ":" s_1 ":" … ":" s_n)
    block_c = HMAC-SHA-256(key = K_d, msg = c as 8 bytes big-endian), c = 0, 1, 2, …

with s_1 … s_n the participants' seeds in the order of the hand file's `players`, every text
in ASCII. The server cannot pick the deck after the players' seeds arrive (its seed is
fixed by the commitment), and no player can steer it (he does not know the server's seed).
After the hand the seeds are revealed and anyone re-derives every deal (`check_document`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from .cards import Card, CardError, commitment, deal_round, fisher_yates, parse_card, shuffled
from .games import SCORERS, get_variant
from .hand import Deal, PlayerSeed
from .variants import VariantError

FORMAT = "svara-fair/1"
SEED = re.compile(r"[0-9a-f]{32,128}")  # 16 to 64 random bytes, lowercase hex
COMMIT = re.compile(r"[0-9a-f]{64}")
SEED_BYTES = 32
# Who gave a participant's seed (the hand file's `seeds[].kind`, docs/fairness.md): his page
# ("person"), or nobody: a bot, or a person whose page sent none ("silent"); those two get
# the drawn seed, and a check fails a file where theirs is anything else.
PERSON, BOT, SILENT = "person", "bot", "silent"
KINDS = (PERSON, BOT, SILENT)


class FairnessError(ValueError):
    """A seed or a file the check cannot read (not a failed check: that is a problem)."""


def new_seed() -> str:
    """A fresh secrets-grade seed: 32 random bytes in lowercase hex."""
    return secrets.token_hex(SEED_BYTES)


def check_seed(text: str) -> str:
    """A participant's seed as sent by his page; FairnessError when it is not one."""
    if not isinstance(text, str) or not SEED.fullmatch(text):
        raise FairnessError("a seed is 32 to 128 lowercase hexadecimal digits")
    return text


class ServerSeed(NamedTuple):
    """The server's secret for one hand and the commitment published before it."""

    seed: str
    commit: str

    @classmethod
    def draw(cls) -> ServerSeed:
        seed = new_seed()
        return cls(seed, commitment(seed))


def drawn_seed(server_seed: str, name: str) -> str:
    """The seed of a participant whose page sent none (a bot, an old page): fixed by the
    committed server seed, so the server cannot choose it after the others' seeds arrive."""
    message = f"{FORMAT}:drawn:{name}".encode()
    return hmac.new(server_seed.encode("ascii"), message, hashlib.sha256).hexdigest()


def deal_key(server_seed: str, seeds: Sequence[str], deal: int) -> bytes:
    """K_d: the key of deal `deal`'s word stream (docs/fairness.md)."""
    message = ":".join([FORMAT, str(deal), *seeds]).encode("ascii")
    return hmac.new(server_seed.encode("ascii"), message, hashlib.sha256).digest()


def words(key: bytes) -> Iterator[int]:
    """32-bit big-endian words of HMAC-SHA-256(K_d, counter) for counter 0, 1, 2, …"""
    counter = 0
    while True:
        block = hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        counter += 1


def fair_order(
    deck: Sequence[Card], server_seed: str, seeds: Sequence[str], deal: int
) -> list[Card]:
    """The deck of deal `deal`, top card first."""
    return fisher_yates(deck, words(deal_key(server_seed, seeds, deal)))


class FairDeals:
    """The deal source of a live hand: deal d from the server seed and everyone's seeds.

    `start` is the index of the first deal it makes (a hand resumed after a restart has
    its earlier deals on record)."""

    def __init__(
        self,
        deck: Sequence[Card],
        server: ServerSeed,
        seeds: Sequence[PlayerSeed],
        start: int = 0,
    ):
        self.deck, self.server, self.seeds = tuple(deck), server, tuple(seeds)
        self.count = start

    @classmethod
    def after(cls, stored: Sequence[Deal], deck: Sequence[Card]) -> FairDeals | None:
        """The deals a fair hand has yet to make after its `stored` ones (a hand resumed
        after a restart, C-8.5: its Svara re-deals), from its recorded seeds; None for a
        hand dealt by the older single-seed shuffle."""
        first = stored[0] if stored else None
        if first is None or first.seeds is None or not (first.seed and first.commit):
            return None
        return cls(deck, ServerSeed(first.seed, first.commit), first.seeds, start=len(stored))

    def __call__(self, players: Sequence[str]) -> Deal:
        order = fair_order(self.deck, self.server.seed, [s.seed for s in self.seeds], self.count)
        self.count += 1
        return Deal(deal_round(order, players), self.server.commit, self.server.seed, self.seeds)


def seed_problem(seed: PlayerSeed, server_seed: str) -> str | None:
    """Why one participant's seed is not bound, or None: a bot's and a silent page's seed
    must be the drawn one (fixed by the commitment before anyone answered); a person's seed
    is his page's and is never marked drawn."""
    derived = seed.kind in (BOT, SILENT) or (seed.kind is None and seed.drawn)
    if seed.kind == PERSON and seed.drawn:
        return f"{seed.name}'s seed is marked both his page's and drawn"
    if derived and seed.seed != drawn_seed(server_seed, seed.name):
        who = {BOT: "the bot ", SILENT: "the silent page of "}.get(seed.kind or "", "")
        return f"{who}{seed.name}'s seed is not the one drawn from the server's seed"
    return None


def deal_problem(
    deck: Sequence[Card],
    deal: Deal,
    index: int,
    order: Sequence[str] | None = None,
    seen: Mapping[str, Sequence[Card | None]] | None = None,
) -> str | None:
    """Why deal `index` does not match its seeds, or None when it does. `order` is the
    dealing order (default: the order of `deal.cards`); `seen` the cards to check (default
    all of `deal.cards`; None inside a hand stands for a card the file does not show)."""
    if not (deal.seed and deal.commit):
        return f"deal {index} has no shuffle commitment"
    if commitment(deal.seed) != deal.commit:
        return f"deal {index}: the seed does not open the commitment"
    players = list(order if order is not None else deal.cards)
    shown = seen if seen is not None else deal.cards
    if deal.seeds is None:  # svara-shuffle/1: the server's seed alone (older hand files)
        top = shuffled(deck, deal.seed)
    else:
        for s in deal.seeds:
            problem = seed_problem(s, deal.seed)
            if problem:
                return f"deal {index}: {problem}"
        top = fair_order(deck, deal.seed, [s.seed for s in deal.seeds], index)
    try:
        expected = deal_round(top, players)
    except CardError as e:
        return f"deal {index}: {e}"
    for name, cards in shown.items():
        want = expected.get(name)
        if want is None:
            return f"deal {index} gives cards to {name}, who is not in its dealing order"
        if len(cards) != len(want) or any(
            c is not None and c != w for c, w in zip(cards, want, strict=True)
        ):
            plural = "" if deal.seeds is None else "s"
            return f"deal {index} does not match its shuffle seed{plural}: {name}'s cards differ"
    return None


# --- checking a hand file (`svara verify`) -------------------------------------------------


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise FairnessError(message)


def read_seeds(raw: Any, names: Sequence[str]) -> tuple[PlayerSeed, ...] | None:
    """The hand file's `seeds`: one per entry of `players`, in that order (or absent)."""
    if raw is None:
        return None
    _need(isinstance(raw, list), '"seeds" must be a list')
    seeds = []
    for i, s in enumerate(raw):
        _need(isinstance(s, dict) and isinstance(s.get("name"), str), f"seeds[{i}] needs a name")
        try:
            seed = check_seed(s.get("seed"))
        except FairnessError as e:
            raise FairnessError(f"seeds[{i}]: {e}") from None
        drawn, kind = s.get("drawn", False), s.get("kind")
        _need(isinstance(drawn, bool), f"seeds[{i}].drawn must be true or false")
        _need(kind is None or kind in KINDS, f"seeds[{i}].kind must be one of {', '.join(KINDS)}")
        seeds.append(PlayerSeed(s["name"], seed, drawn, kind))
    _need(
        [s.name for s in seeds] == list(names),
        '"seeds" must name every player of "players", in the same order',
    )
    return tuple(seeds)


class Mine(NamedTuple):
    """What a player's page kept of a hand (docs/fairness.md): the seed it sent and the
    commitment it was shown when it did; `name` his, when known."""

    seed: str
    commit: str
    name: str | None = None


class Verdict(NamedTuple):
    """`check_document`'s answer: the problems (none: the check passed), what it could not
    prove, and who gave each seed (`seeds[].kind`) so a reader can compare them with the
    table he sat at."""

    problems: list[str]
    unproven: list[str]
    kinds: dict[str, str]


LEGACY_SHUFFLE = (
    "the hand was dealt by the older svara-shuffle/1 (no players' seeds): its deck depends "
    "on the server's seed alone, so the server could have chosen it"
)
LEGACY_KINDS = (
    "the file does not say who gave each seed: a bot's seed not marked drawn could have "
    "been chosen by the server after every other seed was given"
)
NO_MINE = (
    "without your own seed and the commitment your page was shown (--seed, --commit) it "
    "cannot tell a server that replaced both the server seed and the cards"
)


def read_mine(raw: Any) -> Mine | None:
    """A file's `mine` (added by the player's page to his copy, docs/fairness.md)."""
    if raw is None:
        return None
    _need(isinstance(raw, dict), '"mine" must be an object')
    _need(
        isinstance(raw.get("commit"), str) and bool(COMMIT.fullmatch(raw["commit"])),
        '"mine.commit" must be 64 lowercase hexadecimal digits',
    )
    name = raw.get("name")
    _need(name is None or isinstance(name, str), '"mine.name" must be text')
    return Mine(check_seed(raw.get("seed")), raw["commit"], name)


def check_document(
    doc: Any, *, legacy: bool = False, mine: Mine | None = None, bots: Sequence[str] = ()
) -> Verdict:
    """The problems of a hand file's shuffle: every deal's seed must open its commitment and
    reproduce the cards the file shows, every bot's and silent page's seed must be the drawn
    one, and with `mine` (or the file's own `mine`) the hand's commitment must be the one
    the page was shown and the page's seed among the persons' seeds; `bots` are names the
    reader knows for bots. A file of the older schemes (no seeds, or seeds without kinds)
    is a problem unless `legacy`, and then says what it cannot prove. A player's copy (GET
    /hands/<id>.json) shows only his cards and those shown to him, with each deal's dealing
    `order`; `null` stands for a card he did not see. FairnessError when the file cannot be
    read at all."""
    _need(isinstance(doc, dict), "a hand file is a JSON object")
    _need(isinstance(doc.get("rules", {}), dict), '"rules" must be an object')
    try:
        variant = get_variant(str(doc.get("variant")), doc.get("rules", {}))
    except VariantError as e:
        raise FairnessError(str(e)) from None
    deck = SCORERS[variant.game].deck
    players = doc.get("players")
    _need(isinstance(players, list) and bool(players), '"players" must be a list')
    names = [p.get("name") if isinstance(p, dict) else None for p in players]
    _need(all(isinstance(n, str) for n in names), "every player needs a name")
    # Not typed (next line): the check above made every name a str.
    seeds = read_seeds(doc.get("seeds"), names)  # type: ignore[arg-type]
    if mine is None:
        mine = read_mine(doc.get("mine"))
    raw_deals = doc.get("deals")
    _need(isinstance(raw_deals, list) and bool(raw_deals), '"deals" must list at least one deal')
    problems: list[str] = []
    unproven: list[str] = []
    kinds = {s.name: s.kind or ("drawn" if s.drawn else "?") for s in seeds or ()}
    if seeds is None or any(s.kind is None for s in seeds):
        old = LEGACY_SHUFFLE if seeds is None else LEGACY_KINDS
        (unproven if legacy else problems).append(
            old if legacy else f"{old}; it is checked only with --legacy"
        )
        if not legacy:
            return Verdict(problems, unproven, kinds)
    for name in bots:
        if kinds.get(name, BOT) != BOT:
            problems.append(f"{name} is a bot, but the file gives {name}'s seed as {kinds[name]}")
    commits: set[str | None] = set()
    for d, raw in enumerate(raw_deals):
        _need(isinstance(raw, dict), f"deals[{d}] must be an object")
        raw = dict(raw)
        commit, seed, order = raw.pop("commit", None), raw.pop("seed", None), raw.pop("order", None)
        _need(
            order is None or (isinstance(order, list) and all(n in names for n in order)),
            f"deals[{d}].order must list players of the hand",
        )
        seen: dict[str, list[Card | None]] = {}
        for name, texts in raw.items():
            _need(name in names, f"deals[{d}] names unknown player {name!r}")
            _need(isinstance(texts, list), f"deals[{d}].{name} must be a list of cards")
            try:
                seen[name] = [None if t is None else parse_card(str(t)) for t in texts]
            except CardError as e:
                raise FairnessError(f"deals[{d}].{name}: {e}") from None
        _need(
            (commit is None or isinstance(commit, str)) and (seed is None or isinstance(seed, str)),
            f"deals[{d}]: commit and seed are text",
        )
        commits.add(commit)
        deal = Deal({}, commit, seed, seeds)
        problem = deal_problem(deck, deal, d, order if order is not None else list(seen), seen)
        if problem:
            problems.append(problem)
    if seeds is not None and len(commits) > 1:
        problems.append("the deals of one hand carry different commitments")
    if mine is not None:
        problems += _mine_problems(mine, commits, seeds or ())
    else:
        unproven.append(NO_MINE)
    return Verdict(problems, unproven, kinds)


def _mine_problems(mine: Mine, commits: set[str | None], seeds: Sequence[PlayerSeed]) -> list[str]:
    """What the page's own record finds wrong: another commitment, its seed left out."""
    out = []
    if commits != {mine.commit}:
        out.append("the hand's commitment is not the one your page was shown")
    own = [s for s in seeds if s.seed == mine.seed and mine.name in (None, s.name)]
    if not own:
        out.append("your seed is not among the participants' seeds")
    elif all(s.kind != PERSON for s in own):
        out.append("your seed is not given as your page's")
    return out
