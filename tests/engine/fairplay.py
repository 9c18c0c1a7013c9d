"""A hand with fair deals (docs/fairness.md) played by random legal moves, for the tests of
the shuffle check in the engine and the CLI."""

from __future__ import annotations

import random

from app.engine import games
from app.engine.fairness import BOT, PERSON, FairDeals, ServerSeed, drawn_seed
from app.engine.games import PRESETS, SCORERS
from app.engine.hand import Action, Hand, PlayerSeed, Seat

NAMES = ["Иван", "Ёж", "Мария", "ПЕТЪР", "Гэри 🤖"]


def play_fair(game: str, seed: int) -> tuple[Hand, list[Action]]:
    """A hand of `game` with fair deals for five real names, played by random legal moves."""
    rng = random.Random(seed)
    variant = PRESETS[game]
    cls = games.hand_class(game)
    names = NAMES[: min(5, variant["seats"])]
    seats = [Seat(n, cls.stake(variant)) for n in names]
    server = ServerSeed.draw()
    seeds = [  # the bot's seed is drawn from the server's, as at a live table
        PlayerSeed(n, drawn_seed(server.seed, n), drawn=True, kind=BOT)
        if n.startswith("Гэри")
        else PlayerSeed(n, f"{rng.getrandbits(128):032x}", kind=PERSON)
        for n in names
    ]
    hand = cls(variant, seats, names[0], FairDeals(SCORERS[game].deck, server, seeds))
    actions = []
    while not hand.finished:
        player = rng.choice(hand.awaiting())
        option = rng.choice(hand.legal(player))
        to = option.to if option.to is not None else option.min_to
        action = Action(player, option.do, to, option.deal)
        hand.act(action)
        actions.append(action)
    return hand, actions
