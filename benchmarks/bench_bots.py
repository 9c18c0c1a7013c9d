"""Bots: the odds bot against the random bot (and each game's own bot) (docs/performance.md,
«Bots»).

Run: .venv/bin/python -m benchmarks.bench_bots [--hands N] [--seed S] [--variants a,b]
Prints one JSON line per variant, table size and opponent: the odds bot's mean result per
hand in antes with its 95 % confidence interval, over N simulated hands (seat 0 against
players − 1 opponents; deals seeded, seats topped up between hands).
"""

from __future__ import annotations

import argparse
import json
import time

from app.engine.arena import lineups, match
from app.engine.games import get_variant

VARIANTS = "classic,shaha36,svara32,svara32-traditional"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", default=VARIANTS)
    args = parser.parse_args()
    for name in args.variants.split(","):
        variant = get_variant(name)
        for players in (2, 4):
            for opponent in lineups(variant.game):
                started = time.perf_counter()
                result = match(variant, "odds", opponent, players, args.hands, args.seed)
                print(
                    json.dumps(
                        {
                            "variant": name,
                            "players": players,
                            "opponent": opponent,
                            "hands": args.hands,
                            "mean_antes": round(result.mean, 3),
                            "ci95": round(result.half_width, 3),
                            "seconds": round(time.perf_counter() - started, 1),
                        }
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    main()
