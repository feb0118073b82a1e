#!/usr/bin/env bash
# `make bench`: the whole performance suite on the release build, each part printing its own
# detail, then one table of the results with the command behind each row. Prints numbers;
# a part with a guard (bench-encode's bound on the CPU ratio) that fails is named at the end,
# after the table, and makes the run exit 1. BENCH_BURST sets the burst's size (1,000).
# Usage: scripts/bench.sh [path/to/tilawa]
set -euo pipefail
cd "$(dirname "$0")/.."
tilawa=$(realpath "${1:-.build/release/tilawa}")
BENCH_ROWS=$(mktemp)
export BENCH_ROWS
trap 'rm -f "$BENCH_ROWS"' EXIT

failed=()
for part in encode analyze upload load burst; do
  echo "== bench-$part"
  "scripts/bench-$part.sh" "$tilawa" || failed+=("bench-$part")
  echo
done
echo "== bench-status (and start to READY on the same database)"
BENCH_READY=1 scripts/bench-status.sh "$tilawa"
echo
echo "== start to READY on an empty state directory"
scripts/bench-ready.sh "$tilawa"
echo

echo "== make bench: $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD 2>/dev/null || echo 'no git')"
awk -F '\t' '
  { what[NR] = $1; result[NR] = $2; command[NR] = $3; if (length($1) > w) w = length($1) }
  END {
    for (i = 1; i <= NR; i++) {
      printf "| %-*s | %s |\n", w, what[i], result[i]
      printf "| %-*s |   `%s` |\n", w, "", command[i]
    }
  }' "$BENCH_ROWS"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "past its bound: ${failed[*]} (its own output above says which figure)"
  exit 1
fi
