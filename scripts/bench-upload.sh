#!/usr/bin/env bash
# Benchmark (release build): upload answer time against a bare `tilawa analyze` of the same
# 3-minute WAV, the daemon's peak RSS with 64 concurrent 17 MB uploads, and the time until
# every upload is encoded. Prints numbers; asserts nothing.
# Usage: scripts/bench-upload.sh [path/to/tilawa] [sequential-runs]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=$(realpath "${1:-.build/release/tilawa}")
runs=${2:-10}
bench_scratch

make_speech_3min
bytes=$(stat -c %s "$input")
# 64 students, so 64 uploads are 64 accepted recordings.
start_bench_daemon 64
issue_tokens 64

# 1. Sequential uploads against bare analysis, alternating.
analyze=(); answer=()
for run in $(seq 1 "$runs"); do
  t0=$(now); "$tilawa" analyze "$input" >/dev/null; t1=$(now)
  analyze+=("$(echo "$t1 - $t0" | bc -l)")
  answer+=("$(upload "B$(printf %04d $(( (run % 64) + 1 )))" "$input" | cut -d' ' -f1)")
done
m_analyze=$(printf '%s\n' "${analyze[@]}" | median)
m_answer=$(printf '%s\n' "${answer[@]}" | median)
p_answer=$(printf '%s\n' "${answer[@]}" | p99)
wait_for_encodes

# 2. 64 concurrent uploads of 17 MB: answer times, statuses, peak RSS, time to drain the queue,
# and the CPU the daemon spent on them by its own accounting (answer + encode job + variants).
# One opusenc run on the same file, CPU seconds: three before the batch and three after.
opus_cpu=()
for _ in 1 2 3; do opus_cpu+=("$(opusenc_cpu "$input")"); done
sampling=no; perf_sampling && sampling=yes
[ $sampling = yes ] && perf_run "$work/opusenc.samples" opusenc --quiet --bitrate 32 "$input" "$work/reference.opus"
[ $sampling = yes ] && perf_attach "$work/daemon.data"
cpu_before=$(process_cpu "$pid")
start=$(now)
seq -f 'B%04g' 1 64 | xargs -P 64 -I{} bash -c "upload {} '$input'" > "$work/concurrent.txt"
answered=$(now)
wait_for_encodes
drained=$(now)
[ $sampling = yes ] && perf_detach
[ $sampling = yes ] && perf_run "$work/opusenc.samples" opusenc --quiet --bitrate 32 "$input" "$work/reference.opus"
# The same ratio from perf samples (bench-lib.sh: libopus_share): each upload is one libopus
# encode of the file, as one opusenc run is.
share_note="not measured (perf cannot sample here)"
if [ $sampling = yes ]; then
  share_note=$(libopus_ratio "$work/daemon.data" "$work/opusenc.samples" "the daemon" "$pid")
fi
rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
cpu_per_upload=$(echo "($(process_cpu "$pid") - $cpu_before) / 64" | bc -l)
for _ in 1 2 3; do opus_cpu+=("$(opusenc_cpu "$input")"); done
m_opus_cpu=$(printf '%s\n' "${opus_cpu[@]}" | median)
created=$(grep -c ' 201$' "$work/concurrent.txt" || true)
c_median=$(cut -d' ' -f1 "$work/concurrent.txt" | median)
c_p99=$(cut -d' ' -f1 "$work/concurrent.txt" | p99)

printf 'input: 180 s of 48 kHz mono 16-bit speech, %d bytes; %d sequential runs; %d cores\n' "$bytes" "$runs" "$(nproc)"
printf '%-52s %10s\n' "bare tilawa analyze, median (s)" "$m_analyze"
printf '%-52s %10s\n' "upload answer (201), sequential, median (s)" "$m_answer"
printf '%-52s %10s\n' "upload answer (201), sequential, p99 (s)" "$p_answer"
printf '%-52s %10s\n' "ratio answer/analyze (median)" "$(ratio "$m_answer" "$m_analyze")"
printf '%-52s %10s\n' "64 concurrent uploads: 201 answers" "$created"
printf '%-52s %10s\n' "64 concurrent: answer median (s)" "$c_median"
printf '%-52s %10s\n' "64 concurrent: answer p99 (s)" "$c_p99"
printf '%-52s %10s\n' "64 concurrent: all answered after (s)" "$(ratio "$(echo "$answered - $start" | bc -l)" 1 1)"
printf '%-52s %10s\n' "64 concurrent: all encoded after (s)" "$(ratio "$(echo "$drained - $start" | bc -l)" 1 1)"
printf '%-52s %10s\n' "daemon peak RSS (MB, VmHWM)" "$(ratio "$rss" 1024 1)"
printf '%-52s %10s\n' "daemon CPU per accepted upload (s, user+sys)" "$(ratio "$cpu_per_upload" 1 3)"
printf '%-52s %10s\n' "one opusenc --bitrate 32, CPU (s, median of 6)" "$m_opus_cpu"
printf '%-52s %10s\n' "ratio daemon CPU per upload / opusenc CPU" "$(ratio "$cpu_per_upload" "$m_opus_cpu")"
printf '%-52s %s\n' "the same ratio by libopus share (perf, drift-free)" "$share_note"

row "upload answer / bare analyze (3 min WAV, 17 MB)" \
    "$(ratio "$m_answer" "$m_analyze") (median ${m_answer} s, p99 ${p_answer} s vs ${m_analyze} s; target <= 1.3)" \
    "curl --data-binary @IN POST …/weeks/assessment/submissions vs tilawa analyze IN, $runs sequential, alternating"
row "peak RSS, 64 concurrent 17 MB uploads" \
    "$(ratio "$rss" 1024 0) MB ($created of 64 answered 201, p99 answer ${c_p99} s; all encoded after $(ratio "$(echo "$drained - $start" | bc -l)" 1 1) s; target <= 150 MB)" \
    "xargs -P 64 curl … (64 students at once); VmHWM of tilawa serve"
row "daemon CPU per accepted 3-min upload / one opusenc" \
    "$(ratio "$cpu_per_upload" "$m_opus_cpu" 3) (by libopus share: $share_note)" \
    "utime+stime of tilawa serve over the 64 concurrent uploads (answer, encode job, MP4/CAF) / 64, vs opusenc --bitrate 32 IN (median of 6)"
