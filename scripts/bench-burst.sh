#!/usr/bin/env bash
# Benchmark (release build): a burst of one-minute phone recordings (AAC in M4A, as the app
# sends them), 1,000 by default, 16 in flight at a time, tokens issued beforehand. Prints the
# answer times, the time until every upload is encoded, and the throughput counted in one
# core's encoder work: one `opusenc --bitrate 32` of the same minute (decoded to WAV) in CPU
# seconds, times the count, over the drain time. Also the daemon's own CPU per upload against
# that opusenc run, and how busy it kept the cores.
# Usage: scripts/bench-burst.sh [path/to/tilawa] [uploads]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=$(realpath "${1:-.build/release/tilawa}")
count=${2:-${BENCH_BURST:-1000}}
bench_scratch

make_speech_3min
ffmpeg -nostdin -hide_banner -loglevel error -i "$input" -t 60 -ac 1 -c:a aac -b:a 64k "$work/minute.m4a"
input="$work/minute.m4a"

ffmpeg -nostdin -hide_banner -loglevel error -i "$input" -ar 48000 -ac 1 -c:a pcm_s16le "$work/minute.wav"

# One core's encoder work per upload: opusenc's CPU seconds on the same minute, five runs
# before the burst and five after (a shared host's speed drifts over ten minutes; both
# medians are printed, the throughput uses all ten).
single=()
for _ in 1 2 3 4 5; do single+=("$(opusenc_cpu "$work/minute.wav")"); done

start_bench_daemon "$count"
issue_tokens "$count"
sampling=no; perf_sampling && sampling=yes
[ $sampling = yes ] && perf_attach "$work/daemon.data"
cpu_before=$(process_cpu "$pid")
start=$(now)
seq -f 'B%04g' 1 "$count" | xargs -P 16 -I{} bash -c "upload {} '$input'" > "$work/burst.txt"
answered=$(now)
wait_for_encodes
drained=$(now)
[ $sampling = yes ] && perf_detach
cpu=$(echo "$(process_cpu "$pid") - $cpu_before" | bc -l)
for _ in 1 2 3 4 5; do single+=("$(opusenc_cpu "$work/minute.wav")"); done
# The per-upload ratio again from perf samples (bench-lib.sh: libopus_share); opusenc encodes
# the minute as decoded to 16-bit WAV, the daemon as decoded to float, so their libopus work
# differs by that rounding only.
share_note="not measured (perf cannot sample here)"
if [ $sampling = yes ]; then
  for _ in 1 2 3; do perf_run "$work/opusenc.samples" opusenc --quiet --bitrate 32 "$work/minute.wav" "$work/reference.opus"; done
  share_note=$(libopus_ratio "$work/daemon.data" "$work/opusenc.samples" "the daemon" "$pid")
fi
m_single=$(printf '%s\n' "${single[@]}" | median)
m_before=$(printf '%s\n' "${single[@]:0:5}" | median)
m_after=$(printf '%s\n' "${single[@]:5:5}" | median)
created=$(grep -c ' 201$' "$work/burst.txt" || true)
a_median=$(cut -d' ' -f1 "$work/burst.txt" | median)
a_p99=$(cut -d' ' -f1 "$work/burst.txt" | p99)
drain=$(echo "$drained - $start" | bc -l)
speedup=$(echo "$count * $m_single / $drain" | bc -l)
per_upload=$(echo "$cpu / $count" | bc -l)
busy=$(echo "$cpu / ($drain * $(nproc))" | bc -l)

printf 'input: 60 s AAC/M4A, %d bytes; %d uploads, 16 in flight; %d cores\n' "$(stat -c %s "$input")" "$count" "$(nproc)"
printf '%-52s %10s\n' "one opusenc --bitrate 32 of the minute, CPU s" "$m_single (before $m_before, after $m_after)"
printf '%-52s %10s\n' "daemon CPU per upload, s (ratio to opusenc)" "$(ratio "$per_upload" 1 3) ($(ratio "$per_upload" "$m_single" 3))"
printf '%-52s %s\n' "the same ratio by libopus share (perf, drift-free)" "$share_note"
printf '%-52s %10s\n' "daemon CPU / (cores x drain time)" "$(ratio "$busy" 1 3)"
printf '%-52s %10s\n' "answered 201" "$created"
printf '%-52s %10s\n' "answer median / p99 (s)" "$a_median / $a_p99"
printf '%-52s %10s\n' "all answered after (s)" "$(ratio "$(echo "$answered - $start" | bc -l)" 1 1)"
printf '%-52s %10s\n' "all encoded after (s)" "$(ratio "$drain" 1 1)"
printf '%-52s %10s\n' "uploads per second, answered to encoded" "$(ratio "$count" "$drain")"
printf '%-52s %10s\n' "throughput in opusenc CPU seconds per second" "$(ratio "$speedup" 1)"

row "burst of $count one-minute M4A uploads: drain time" \
    "$(ratio "$drain" 1 1) s ($created answered 201, answer median ${a_median} s / p99 ${a_p99} s; $(ratio "$count" "$drain") uploads/s)" \
    "xargs -P 16 curl --data-binary @minute.m4a POST …/weeks/assessment/submissions, until the job queue is empty"
row "burst throughput in one opusenc core's work ($(nproc) cores)" \
    "$(ratio "$speedup" 1)x (daemon CPU per upload $(ratio "$per_upload" "$m_single" 3)x opusenc's, by libopus share $share_note; cores $(ratio "$busy" 1 3) busy)" \
    "$count x CPU(opusenc --bitrate 32 minute.wav) / drain time"
