"""Simulated hands per second (`svara simulate`) with 2, 4 and 8 bots (docs/performance.md,
«Simulated hands»).

Run: .venv/bin/python -m benchmarks.bench_simulate [--variant V] [--bot B] [--hands N]
     [--repeats R]
Prints one JSON line per table size with the median hands/s of R runs (each run a fresh
seed), by the wall clock and by the process's CPU time (which a busy shared machine
disturbs less), and the share of hands that went to a Svara. The aim: ≥ 5,000 hands/s for
4 random bots on one core. A game with fewer seats (shaha36, svara32: 6) runs 2, 4 and 6.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from app.engine.games import get_variant
from app.engine.simulate import simulate


def timed(variant: Any, players: int, hands: int, seed: int, bot: str) -> dict[str, Any]:
    """One `simulate` run with the CPU seconds it used."""
    started = time.process_time()
    run = simulate(variant, players, hands, seed=seed, bot=bot, clock=time.perf_counter)
    run["cpu_seconds"] = time.process_time() - started
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--bot", default="random")
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    variant = get_variant(args.variant)
    for players in (2, 4, min(8, variant["seats"])):
        runs = [timed(variant, players, args.hands, seed, args.bot) for seed in range(args.repeats)]
        assert all(run["conserved"] for run in runs)
        print(
            json.dumps(
                {
                    "variant": args.variant,
                    "bot": args.bot,
                    "players": players,
                    "hands_per_s": round(statistics.median(r["hands_per_second"] for r in runs)),
                    "hands_per_cpu_s": round(
                        statistics.median(args.hands / r["cpu_seconds"] for r in runs)
                    ),
                    "actions_per_hand": round(
                        sum(r["actions"] for r in runs) / (args.hands * args.repeats), 1
                    ),
                    "svara_share": round(
                        sum(r["svaras"] for r in runs) / (args.hands * args.repeats), 3
                    ),
                }
            )
        )


if __name__ == "__main__":
    main()
