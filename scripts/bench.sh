#!/usr/bin/env bash
# `make bench`: the whole performance suite on the release build, each part printing its own
# detail, then one table of the results with the command behind each row. Prints numbers;
# asserts nothing. BENCH_BURST sets the burst's size (1,000).
# Usage: scripts/bench.sh [path/to/tilawa]
set -euo pipefail
cd "$(dirname "$0")/.."
tilawa=$(realpath "${1:-.build/release/tilawa}")
BENCH_ROWS=$(mktemp)
export BENCH_ROWS
trap 'rm -f "$BENCH_ROWS"' EXIT

for part in encode analyze upload load burst; do
  echo "== bench-$part"
  "scripts/bench-$part.sh" "$tilawa"
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
