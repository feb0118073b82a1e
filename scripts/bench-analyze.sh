#!/usr/bin/env bash
# Benchmark: the analysis pass (`tilawa analyze`: decode, loudness, speech activity, peaks,
# waveform) against FFmpeg's own loudness meter (`ffmpeg -af ebur128 -f null -`) on the same
# 3-minute speech WAV, alternating runs. Prints both medians and the ratio.
# Usage: scripts/bench-analyze.sh [path/to/tilawa] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=${1:-.build/release/tilawa}
runs=${2:-7}
bench_scratch

make_speech_3min

ours=(); theirs=()
for run in $(seq 1 "$runs"); do
  t0=$(now); "$tilawa" analyze "$input" >/dev/null; t1=$(now)
  ffmpeg -nostdin -hide_banner -nostats -loglevel error -i "$input" -af ebur128 -f null -; t2=$(now)
  ours+=("$(echo "$t1 - $t0" | bc -l)"); theirs+=("$(echo "$t2 - $t1" | bc -l)")
done
m_ours=$(printf '%s\n' "${ours[@]}" | median); m_theirs=$(printf '%s\n' "${theirs[@]}" | median)
ours_lufs=$("$tilawa" analyze --json "$input" | sed -n 's/.*"loudness_lufs" *: *\(-\{0,1\}[0-9.]*\).*/\1/p' | head -1 | xargs printf '%.1f')
theirs_lufs=$(ffmpeg -nostdin -hide_banner -nostats -i "$input" -af ebur128 -f null - 2>&1 | awk '/Integrated loudness:/ {getline; print $2}')

printf 'input: 180 s of 48 kHz mono speech, %s runs each, alternating\n' "$runs"
printf '%-44s %10s %10s\n' "analysis" "median s" "LUFS"
printf '%-44s %10.3f %10s\n' "tilawa analyze" "$m_ours" "$ours_lufs"
printf '%-44s %10.3f %10s\n' "ffmpeg -af ebur128 -f null -" "$m_theirs" "$theirs_lufs"
printf 'time ratio tilawa/ffmpeg: %.3f\n' "$(echo "$m_ours / $m_theirs" | bc -l)"

row "analysis pass: tilawa analyze / ffmpeg ebur128 time" \
    "$(ratio "$m_ours" "$m_theirs") (${m_ours} s vs ${m_theirs} s; ${ours_lufs} vs ${theirs_lufs} LUFS)" \
    "tilawa analyze IN vs ffmpeg -i IN -af ebur128 -f null -, median of $runs, alternating"
