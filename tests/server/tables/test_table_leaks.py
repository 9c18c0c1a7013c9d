"""No client ever receives a card it may not see (docs/protocol.md, «table:state»): every payload
each client got during whole hands — states, news, acks, resyncs — is searched for card names."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ..conftest import Server
from ..tablekit import Player, everyone, hands, new_table, play_hand, seat


def dealt(deal: dict[str, Any]) -> list[str]:
    """The cards of one deal of a stored hand file (its other keys are the shuffle's)."""
    return [c for name, cards in deal.items() if name not in ("commit", "seed") for c in cards]


@pytest.mark.parametrize("variant", ["classic", "shaha36", "svara32"])
def test_no_hidden_card_reaches_any_client(fast: Server, variant: str) -> None:
    """A spectator sees only the cards shown to the table; a player sees besides them only
    his own cards and, after a look (C-4.11), the cards of the one he looked with."""
    table = new_table(fast, variant)
    sit = {} if variant == "classic" else {"stack": 400}
    players = seat(fast, table, 3, 1000, **sit)
    spectator = Player(fast, table)
    spectator.join()
    rng = random.Random(variant)
    for _ in range(4):
        for p in players:
            assert p.call("table:ready") == {"ok": True}
        final = play_hand(players, rng)
        everyone(
            [*players, spectator],
            lambda s, v=players[0].state["version"], h=final["id"]: (
                s["version"] >= v and s["hand"]["id"] == h
            ),
        )
    for p in [*players, spectator]:
        p.drain()
    deals = [d for r in hands(fast, table) for d in r.hand_file["deals"]]  # type: ignore[index]
    assert len(deals) >= 4
    public = spectator.cards_seen()
    hidden_somewhere = False
    for p in players:
        own = {c for d in deals for c in d.get(p.name, ())}  # C-3.9: one's own hand
        looked_with = {
            other
            for _, data in p.received
            if isinstance(data, dict)
            for e in data.get("news", [])
            if e.get("kind") == "look" and "target" in e and p.name in (e["player"], e["target"])
            for other in (e["player"], e["target"])
        }
        allowed = own | public | {c for d in deals for o in looked_with for c in d.get(o, ())}
        seen = p.cards_seen()
        assert seen <= allowed, f"{p.name} saw {sorted(seen - allowed)}"
        assert seen & own, "the search must find the player's own cards"
        everything = {
            c
            for d in deals
            for name, cards in d.items()
            if name in {x.name for x in players}
            for c in cards
        }
        hidden_somewhere |= bool(everything - seen)
    assert hidden_somewhere
    for p in [*players, spectator]:
        p.close()
