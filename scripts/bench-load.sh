#!/usr/bin/env bash
# Benchmark (release build): bounded load. 32 clients upload a 30-second recording at once,
# then, on a fresh daemon, 256 clients do, both with http.max_concurrent_uploads at 32; the
# clients retry a 503 (Retry-After) as a phone would. Prints the statuses, the 503 retries,
# the time until all are accepted and encoded, and the daemon's peak RSS in each case.
# Asserts nothing; the figure to watch is peak RSS(256) / peak RSS(32) (target <= 1.10).
# Then fairness under abuse: 64 honest students upload at once, first alone, then while one
# hostile student holds 32 connections whose bodies trickle in (a byte every 5 s, reconnecting
# the moment one is refused or cut; scripts/hostile-client.py); every honest upload must be
# accepted, and their p95 answer time should stay within 3 s of the run without the attacker.
# Usage: scripts/bench-load.sh [path/to/tilawa]   (BENCH_LOAD_PARTS="memory fairness" by default)
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

# hostile STUDENT SECONDS: 32 slow bodies at once with STUDENT's token for SECONDS, each replaced
# by a new one the moment the server answers it (scripts/hostile-client.py); the statuses of
# the answers go to $work/hostile.
hostile() {
  local token; token=$("$tilawa" token issue --student "$1" --ttl 1h)
  python3 scripts/hostile-client.py "$port" "$token" "$1" 32 "$2" "$work/hostile" &
  hostile_pid=$!
}

# fairness LABEL ATTACK: 64 honest uploads (B0001…B0064) on a fresh daemon, with the hostile
# student B0065 holding slow bodies first when ATTACK is 1. Prints acceptance and p95.
fairness() {
  local label=$1 attack=$2 state
  state=$(mktemp -d "$work/fair.XXXXXX")
  rm -f "$work/retries" "$work/hostile"; touch "$work/retries" "$work/hostile"
  TILAWA_HTTP_MAX_CONCURRENT_UPLOADS=32 start_bench_daemon_in "$state" 65
  issue_tokens 64
  if [ "$attack" = 1 ]; then hostile B0065 90; sleep 3; fi
  seq -f 'B%04g' 1 64 | xargs -P 64 -I{} bash -c "upload {} '$input'" > "$work/fair-$label.txt"
  if [ "$attack" = 1 ]; then wait "$hostile_pid"; fi
  local rss; rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  local created p95
  created=$(grep -c ' 201$' "$work/fair-$label.txt" || true)
  p95=$(awk '{print $1}' "$work/fair-$label.txt" | sort -g | awk '{a[NR]=$1} END {i=int(NR*0.95); if (i<NR*0.95) i++; print a[i]}')
  printf '%-48s %s\n' "fairness, $label: honest 201 answers of 64" "$created"
  printf '%-48s %s\n' "fairness, $label: honest p95 answer (s)" "$(ratio "$p95" 1 2)"
  printf '%-48s %s\n' "fairness, $label: honest 503 retries" "$(wc -l < "$work/retries")"
  if [ "$attack" = 1 ]; then
    printf '%-48s %s\n' "fairness, $label: attacker's answers by status" "$(sort "$work/hostile" | uniq -c | tr -s ' ' | tr '\n' ';')"
  fi
  eval "created_$label=$created; p95_$label=$p95"
}

printf 'input: 30 s of 48 kHz mono 16-bit speech, %d bytes; http.max_concurrent_uploads 32; %d cores\n' "$(stat -c %s "$input")" "$(nproc)"
# BENCH_LOAD_PARTS=fairness runs the fairness rounds alone.
parts=${BENCH_LOAD_PARTS:-"memory fairness"}
if [[ " $parts " == *" memory "* ]]; then
round 32
round 256
printf '%-48s %s\n' "peak RSS 256 clients / 32 clients" "$(ratio "$rss_256" "$rss_32")"
row "peak RSS, 256 clients vs 32, cap 32" \
    "$(ratio "$rss_256" "$rss_32") ($(ratio "$rss_256" 1024 0) MB vs $(ratio "$rss_32" 1024 0) MB; $others_256 errors other than 503, $retries_256 retried 503s; target <= 1.10)" \
    "xargs -P N curl … (30 s WAV, retry on 503), N = 32 then 256, fresh daemon each; VmHWM of tilawa serve"
fi
if [[ " $parts " == *" fairness "* ]]; then
input="$work/speech-30s.wav"
fairness alone 0
fairness attacked 1
printf '%-48s %s\n' "fairness: p95 attacked - p95 alone (s)" "$(echo "$p95_attacked - $p95_alone" | bc -l | xargs printf '%.2f')"
row "64 honest uploads beside a hostile student's 32 slow bodies" \
    "$created_attacked/64 accepted; p95 $(ratio "$p95_attacked" 1 2) s vs $(ratio "$p95_alone" 1 2) s alone (target: all accepted, within 3 s)" \
    "xargs -P 64 curl … (30 s WAV) while scripts/hostile-client.py holds 32 trickling bodies with one student's token, reconnecting"
fi
