#!/usr/bin/env bash
# Benchmark: time from `tilawa serve` starting to READY=1 on its $NOTIFY_SOCKET (what systemd
# waits for), on the state directory $2 (a new, empty one when not given).
# Usage: scripts/bench-ready.sh [path/to/tilawa] [state-dir] [label]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=$(realpath "${1:-.build/release/tilawa}")
work=$(mktemp -d)
state=${2:-$work/var}
label=${3:-an empty state directory}
spid=""; pid=""
cleanup() { for p in $pid $spid; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

runs=()
for run in 1 2 3 4 5; do
  socket="$work/notify-$run.sock"
  socat -u UNIX-RECV:"$socket" - > "$work/notify-$run.txt" &
  spid=$!
  while [ ! -S "$socket" ]; do sleep 0.01; done
  t0=$(now)
  NOTIFY_SOCKET=$socket TILAWA_STATE_DIR="$state" TILAWA_HTTP_PORT=$((20000 + RANDOM % 20000)) TILAWA_LOG_LEVEL=warning \
    "$tilawa" serve > "$work/serve.log" 2>&1 &
  pid=$!
  until grep -q 'READY=1' "$work/notify-$run.txt"; do
    kill -0 "$pid" 2>/dev/null || { echo "bench-ready: tilawa serve exited:" >&2; cat "$work/serve.log" >&2; exit 1; }
    sleep 0.005
  done
  t1=$(now)
  kill -TERM "$pid"; wait "$pid" || true; pid=""
  kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; spid=""
  runs+=("$(echo "$t1 - $t0" | bc -l)")
done
m=$(printf '%s\n' "${runs[@]}" | median)
printf 'start to READY=1 on %s: median %.3f s of 5 (%s)\n' "$label" "$m" "${runs[*]}"
row "start to READY=1, $label" "$(ratio "$m" 1 3) s" "NOTIFY_SOCKET=… tilawa serve; socat UNIX-RECV sees READY=1, median of 5"
