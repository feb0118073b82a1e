#!/usr/bin/env bash
# Benchmark: the daemon's start-up artifact sweep on a big state directory — its time and the
# daemon's peak RSS once it is done, against the same daemon's peak RSS on an empty state
# directory. Each binary runs on its own copy of the state, so an earlier build can be
# measured beside this one (`make bench-status BENCH_SWEEP=…` passes the million-row state).
# Usage: scripts/bench-sweep.sh STATE_DIR BIN [BIN…]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
source_state=$1; shift
work=$(mktemp -d "${TMPDIR:-/tmp}/tilawa-bench-sweep.XXXXXX")
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT

# Starts `tilawa serve` ($1) on state $2; waits for the start-up sweep's log line; prints
# "seconds peak_kib".
sweep_once() {
  local bin=$1 state=$2 log="$work/serve.log"
  local t0; t0=$(now)
  TILAWA_STATE_DIR="$state" TILAWA_HTTP_PORT=$((20000 + RANDOM % 20000)) TILAWA_LOG_LEVEL=info TILAWA_STORAGE_MIN_FREE_BYTES=0 \
    "$bin" serve > "$log" 2>&1 &
  pid=$!
  until grep -q 'start-up sweep' "$log"; do
    kill -0 "$pid" 2>/dev/null || { echo "bench-sweep: tilawa serve exited:" >&2; cat "$log" >&2; exit 1; }
    sleep 0.05
  done
  local t1; t1=$(now)
  local rss; rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  echo "$(echo "$t1 - $t0" | bc -l) $rss"
}

rows=$(sqlite3 "$source_state/tilawa.sqlite" "SELECT COUNT(*) FROM submission")
for bin in "$@"; do
  bin=$(realpath "$bin")
  rm -rf "$work/empty" "$work/big"
  read -r _ idle < <(sweep_once "$bin" "$work/empty")
  cp -a "$source_state" "$work/big"
  read -r seconds peak < <(sweep_once "$bin" "$work/big")
  label=$(basename "$(dirname "$(dirname "$bin")")")/$(basename "$bin")
  printf '%-40s start-up sweep on %s submissions: %.1f s to its log line; peak RSS %.1f MB (empty state: %.1f MB; growth %.1f MB)\n' \
    "$bin" "$rows" "$seconds" "$(ratio "$peak" 1024 1)" "$(ratio "$idle" 1024 1)" "$(ratio "$((peak - idle))" 1024 1)"
  row "start-up sweep, $rows submissions ($label)" \
      "peak RSS $(ratio "$peak" 1024 0) MB, growth over an empty state $(ratio "$((peak - idle))" 1024 0) MB, $(ratio "$seconds" 1 1) s" \
      "TILAWA_LOG_LEVEL=info tilawa serve on a copy of the bench-status state until 'start-up sweep'; VmHWM"
done
