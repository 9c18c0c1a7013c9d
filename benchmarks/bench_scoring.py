"""Scoring: table lookups per second against evaluating the rules directly (docs/performance.md,
«Scoring»).

Run: .venv/bin/python -m benchmarks.bench_scoring [--hands N] [--repeats R]
Prints one JSON line per game with the medians of R runs and their ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from app.engine.games import SCORERS


def rate(fn, hands: list) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    for h in hands:
        fn(h)
    return len(hands) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(1)
    for game, scorer in SCORERS.items():
        hands = [tuple(rng.sample(scorer.deck, 3)) for _ in range(args.hands)]
        lookup = [rate(scorer.score, hands) for _ in range(args.repeats)]
        direct = [rate(scorer.rule, hands) for _ in range(args.repeats)]
        print(
            json.dumps(
                {
                    "game": game,
                    "lookups_per_s": round(statistics.median(lookup)),
                    "direct_per_s": round(statistics.median(direct)),
                    "ratio": round(statistics.median(lookup) / statistics.median(direct), 1),
                }
            )
        )


if __name__ == "__main__":
    main()
