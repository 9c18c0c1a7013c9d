#!/usr/bin/env bash
# The engine of an older commit against this checkout, in one run (docs/performance.md):
#   benchmarks/ab_simulate.sh BASE_COMMIT [HANDS] [ROUNDS]
# Exports BASE_COMMIT into a temporary folder, then runs benchmarks.bench_simulate for each
# game there and here, alternating, ROUNDS times; prints each JSON line prefixed with
# "base N" or "new N".
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
base_commit="$1"
hands="${2:-2000}"
rounds="${3:-3}"
python="$here/.venv/bin/python"
base="$(mktemp -d)"
trap 'rm -rf "$base"' EXIT
git -C "$here" archive "$base_commit" | tar -x -C "$base"
for round in $(seq "$rounds"); do
  for variant in classic shaha36 svara32; do
    for side in base new; do
      dir="$base"
      if [ "$side" = new ]; then dir="$here"; fi
      (cd "$dir" && PYTHONPATH="$dir" "$python" -m benchmarks.bench_simulate \
        --variant "$variant" --hands "$hands" --repeats 3) | sed "s/^/$side $round /"
    done
  done
done
