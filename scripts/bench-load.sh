#!/usr/bin/env bash
# Benchmark (release build): bounded load. 32 clients upload a 30-second recording at once,
# then, on a fresh daemon, 256 clients do, both with http.max_concurrent_uploads at 32; the
# clients retry a 503 (Retry-After) as a phone would. Prints the statuses, the 503 retries,
# the time until all are accepted and encoded, and the daemon's peak RSS in each case.
# Asserts nothing; the figure to watch is peak RSS(256) / peak RSS(32) (target <= 1.10).
# Usage: scripts/bench-load.sh [path/to/tilawa]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=$(realpath "${1:-.build/release/tilawa}")
bench_scratch
input="$work/speech-30s.wav"
sox audio-fixtures/speech_mono_s16_48k.wav audio-fixtures/speech_mono_s16_48k.wav audio-fixtures/speech_mono_s16_48k.wav "$input" trim 0 30

round() {
  local clients=$1 state
  state=$(mktemp -d "$work/round.XXXXXX")
  rm -f "$work/retries"; touch "$work/retries"
  TILAWA_HTTP_MAX_CONCURRENT_UPLOADS=32 start_bench_daemon_in "$state" "$clients"
  local start; start=$(now)
  seq -f 'B%04g' 1 "$clients" | xargs -P "$clients" -I{} bash -c "upload {} '$input'" > "$work/answers-$clients.txt"
  local answered; answered=$(now)
  wait_for_encodes_in "$state"
  local drained; drained=$(now)
  local rss; rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  local created others retries
  created=$(grep -c ' 201$' "$work/answers-$clients.txt" || true)
  others=$(grep -vc ' 201$' "$work/answers-$clients.txt" || true)
  retries=$(wc -l < "$work/retries")
  printf '%-48s %s\n' "$clients clients: 201 answers / other answers" "$created / $others"
  printf '%-48s %s\n' "$clients clients: 503 retries" "$retries"
  if [ "$others" != 0 ]; then
    printf '%-48s %s\n' "$clients clients: other answers by status" "$(awk '$2 != 201 {print $2}' "$work/answers-$clients.txt" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
  fi
  printf '%-48s %s\n' "$clients clients: all accepted after (s)" "$(ratio "$(echo "$answered - $start" | bc -l)" 1 1)"
  printf '%-48s %s\n' "$clients clients: all encoded after (s)" "$(ratio "$(echo "$drained - $start" | bc -l)" 1 1)"
  printf '%-48s %s\n' "$clients clients: daemon peak RSS (MB, VmHWM)" "$(ratio "$rss" 1024 1)"
  eval "rss_$clients=$rss; others_$clients=$others; retries_$clients=$retries"
}

start_bench_daemon_in() {
  work_state=$1
  local saved=$work
  work=$1 start_bench_daemon "$2"
  work=$saved
  export work
}
wait_for_encodes_in() {
  while [ "$(sqlite3 "$1/var/tilawa.sqlite" "SELECT COUNT(*) FROM job WHERE state IN ('queued','running')")" != 0 ]; do sleep 0.2; done
}

printf 'input: 30 s of 48 kHz mono 16-bit speech, %d bytes; http.max_concurrent_uploads 32; %d cores\n' "$(stat -c %s "$input")" "$(nproc)"
round 32
round 256
printf '%-48s %s\n' "peak RSS 256 clients / 32 clients" "$(ratio "$rss_256" "$rss_32")"
row "peak RSS, 256 clients vs 32, cap 32" \
    "$(ratio "$rss_256" "$rss_32") ($(ratio "$rss_256" 1024 0) MB vs $(ratio "$rss_32" 1024 0) MB; $others_256 errors other than 503, $retries_256 retried 503s; target <= 1.10)" \
    "xargs -P N curl … (30 s WAV, retry on 503), N = 32 then 256, fresh daemon each; VmHWM of tilawa serve"
