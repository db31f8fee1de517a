#!/usr/bin/env bash
# Run a command with every core kept busy by a CPU hog (one busy loop per
# core, at the same priority), then stop the hog. The tests' verdicts must not
# depend on load: CI runs the tests that start processes or read benchmark
# tables this way (make test-under-load), and the whole suite passes so too.
#     tools/under_load.sh COMMAND [ARGS...]
set -uo pipefail
cores=$(nproc)
hogs=()
for _ in $(seq "$cores"); do
  python3 -c "while True: pass" &
  hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null' EXIT
echo "under load: $cores busy loops beside: $*"
"$@"
