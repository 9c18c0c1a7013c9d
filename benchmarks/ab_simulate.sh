#!/usr/bin/env bash
# The engine of an older commit against this checkout, in one run (docs/performance.md):
#   benchmarks/ab_simulate.sh BASE_COMMIT [HANDS] [ROUNDS]
# For each game, benchmarks.bench_simulate there and here, alternating, ROUNDS times
# (benchmarks/ab.sh); prints each JSON line prefixed with "base N" or "new N".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for variant in classic shaha36 svara32; do
  "$here/ab.sh" "$1" "${3:-3}" benchmarks.bench_simulate \
    --variant "$variant" --hands "${2:-2000}" --repeats 3
done
