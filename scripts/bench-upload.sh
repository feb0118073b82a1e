#!/usr/bin/env bash
# Benchmark (release build): upload answer time against a bare `tilawa analyze` of the same
# 3-minute WAV, the daemon's peak RSS with 64 concurrent 17 MB uploads, and the time until
# every upload is encoded. Prints numbers; asserts nothing.
# Usage: scripts/bench-upload.sh [path/to/tilawa] [sequential-runs]
set -euo pipefail
cd "$(dirname "$0")/.."
tilawa=$(realpath "${1:-.build/release/tilawa}")
runs=${2:-10}
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# 3 minutes of 48 kHz mono 16-bit speech (17.3 MB).
parts=(); for _ in $(seq 1 20); do parts+=(audio-fixtures/speech_mono_s16_48k.wav); done
sox "${parts[@]}" "$work/speech-3min.wav" trim 0 180
input="$work/speech-3min.wav"
bytes=$(stat -c %s "$input")

# 64 students in the sample programme, so 64 uploads are 64 accepted recordings.
{ echo "student_id,name,level,coach_id,semester_id"; for i in $(seq -w 1 64); do echo "B$i,Bench Student $i,L1,C01,fall-2026"; done; } > "$work/students.csv"
export TILAWA_STATE_DIR="$work/var" TILAWA_HTTP_PORT=$port TILAWA_LOG_LEVEL=warning TILAWA_STORAGE_MIN_FREE_BYTES=0
"$tilawa" roster import config/program.yaml "$work/students.csv" >/dev/null
"$tilawa" serve > "$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
p99() { sort -g | awk '{a[NR]=$1} END {i=int(NR*0.99); if (i<1) i=1; if (i<NR*0.99) i++; print a[i]}'; }
upload() { # student → seconds to answer, HTTP status
  local token; token=$("$tilawa" token issue --student "$1")
  curl -s -o /dev/null -w "%{time_total} %{http_code}\n" -X POST -H "Authorization: Bearer $token" -H "Content-Type: audio/wav" -H 'Expect:' \
    --data-binary @"$input" "http://127.0.0.1:$port/v1/students/$1/weeks/assessment/submissions"
}
export -f upload; export tilawa input port

# 1. Sequential uploads against bare analysis, alternating.
analyze=(); answer=()
for run in $(seq 1 "$runs"); do
  t0=$(date +%s.%N); "$tilawa" analyze "$input" >/dev/null; t1=$(date +%s.%N)
  analyze+=("$(echo "$t1 - $t0" | bc -l)")
  answer+=("$(upload "B$(printf %02d $(( (run % 64) + 1 )))" | cut -d' ' -f1)")
done
m_analyze=$(printf '%s\n' "${analyze[@]}" | median)
m_answer=$(printf '%s\n' "${answer[@]}" | median)
p_answer=$(printf '%s\n' "${answer[@]}" | p99)

# 2. 64 concurrent uploads of 17 MB: answer times, statuses, peak RSS, time to drain the queue.
start=$(date +%s.%N)
seq -w 1 64 | sed 's/^/B/' | xargs -P 64 -I{} bash -c 'upload {}' > "$work/concurrent.txt"
answered=$(date +%s.%N)
while :; do
  pending=$(sqlite3 "$work/var/tilawa.sqlite" "SELECT COUNT(*) FROM job WHERE state IN ('queued','running')")
  [ "$pending" = 0 ] && break
  sleep 0.2
done
drained=$(date +%s.%N)
rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
created=$(grep -c ' 201$' "$work/concurrent.txt" || true)
c_median=$(cut -d' ' -f1 "$work/concurrent.txt" | median)
c_p99=$(cut -d' ' -f1 "$work/concurrent.txt" | p99)

printf 'input: 180 s of 48 kHz mono 16-bit speech, %d bytes; %d sequential runs; %d cores\n' "$bytes" "$runs" "$(nproc)"
printf '%-52s %10s\n' "bare tilawa analyze, median (s)" "$m_analyze"
printf '%-52s %10s\n' "upload answer (201), sequential, median (s)" "$m_answer"
printf '%-52s %10s\n' "upload answer (201), sequential, p99 (s)" "$p_answer"
printf '%-52s %10.2f\n' "ratio answer/analyze (median)" "$(echo "$m_answer / $m_analyze" | bc -l)"
printf '%-52s %10s\n' "64 concurrent uploads: 201 answers" "$created"
printf '%-52s %10s\n' "64 concurrent: answer median (s)" "$c_median"
printf '%-52s %10s\n' "64 concurrent: answer p99 (s)" "$c_p99"
printf '%-52s %10.1f\n' "64 concurrent: all answered after (s)" "$(echo "$answered - $start" | bc -l)"
printf '%-52s %10.1f\n' "64 concurrent: all encoded after (s)" "$(echo "$drained - $start" | bc -l)"
printf '%-52s %10.1f\n' "daemon peak RSS (MB, VmHWM)" "$(echo "$rss / 1024" | bc -l)"
