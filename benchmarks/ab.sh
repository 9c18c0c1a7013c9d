#!/usr/bin/env bash
# An older commit against this checkout, in one run (docs/performance.md):
#   benchmarks/ab.sh BASE_COMMIT ROUNDS MODULE [ARGS...]
# Exports BASE_COMMIT into a temporary folder, then runs `python -m MODULE ARGS...` there and
# here, alternating, ROUNDS times (the same .venv; PYTHONPATH picks the code, and a server
# the module starts inherits it); prints each output line prefixed with "base N" or "new N".
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
base_commit="$1"
rounds="$2"
shift 2
python="$here/.venv/bin/python"
base="$(mktemp -d)"
trap 'rm -rf "$base"' EXIT
git -C "$here" archive "$base_commit" | tar -x -C "$base"
# An exported commit has no built extension: the compiled forwarding (rtc/_forward.c) is
# built in place there, as the install builds it here.
if [ -f "$base/rtc/_forward.c" ]; then
  (cd "$base" && "$python" setup.py -q build_ext --inplace >/dev/null)
fi
for round in $(seq "$rounds"); do
  for side in base new; do
    dir="$base"
    if [ "$side" = new ]; then dir="$here"; fi
    (cd "$dir" && PYTHONPATH="$dir" "$python" -m "$@") | sed "s/^/$side $round /"
  done
done
