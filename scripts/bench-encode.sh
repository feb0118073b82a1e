#!/usr/bin/env bash
# Benchmark: `tilawa encode` against `opusenc --bitrate 32` on the same 3-minute, 48 kHz mono
# speech WAV, alternating runs, and prints both medians, their ratio and both bitrates.
# Usage: scripts/bench-encode.sh [path/to/tilawa] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=${1:-.build/release/tilawa}
runs=${2:-7}
bench_scratch

make_speech_3min
seconds=$(soxi -D "$input")

ours=(); theirs=(); fast=()
for run in $(seq 1 "$runs"); do
  t0=$(now); "$tilawa" encode "$input" "$work/ours.opus" >/dev/null; t1=$(now)
  opusenc --quiet --bitrate 32 "$input" "$work/theirs.opus"; t2=$(now)
  "$tilawa" encode --complexity 5 "$input" "$work/fast.opus" >/dev/null; t3=$(now)
  ours+=("$(echo "$t1 - $t0" | bc -l)"); theirs+=("$(echo "$t2 - $t1" | bc -l)"); fast+=("$(echo "$t3 - $t2" | bc -l)")
done

m_ours=$(printf '%s\n' "${ours[@]}" | median); m_theirs=$(printf '%s\n' "${theirs[@]}" | median); m_fast=$(printf '%s\n' "${fast[@]}" | median)
kbps() { echo "scale=1; $(stat -c %s "$1") * 8 / $seconds / 1000" | bc -l; }

printf 'input: %.1f s of 48 kHz mono speech, %s runs each, alternating\n' "$seconds" "$runs"
printf '%-34s %10s %12s %12s\n' "encoder" "median s" "x realtime" "kbit/s"
printf '%-34s %10.3f %12.1f %12s\n' "tilawa encode (analysis + encode)" "$m_ours" "$(echo "$seconds / $m_ours" | bc -l)" "$(kbps "$work/ours.opus")"
printf '%-34s %10.3f %12.1f %12s\n' "opusenc --bitrate 32" "$m_theirs" "$(echo "$seconds / $m_theirs" | bc -l)" "$(kbps "$work/theirs.opus")"
printf '%-34s %10.3f %12.1f %12s\n' "tilawa encode --complexity 5" "$m_fast" "$(echo "$seconds / $m_fast" | bc -l)" "$(kbps "$work/fast.opus")"
printf 'time ratio tilawa/opusenc (both complexity 10): %.3f\n' "$(echo "$m_ours / $m_theirs" | bc -l)"
printf 'time ratio tilawa --complexity 5 (voice)/opusenc: %.3f\n' "$(echo "$m_fast / $m_theirs" | bc -l)"

row "encode 3 min speech: tilawa / opusenc time" \
    "$(ratio "$m_ours" "$m_theirs") (${m_ours} s vs ${m_theirs} s; $(kbps "$work/ours.opus") vs $(kbps "$work/theirs.opus") kbit/s)" \
    "tilawa encode IN OUT.opus vs opusenc --bitrate 32 IN OUT.opus, median of $runs, alternating"
row "encode, complexity 5: tilawa / opusenc time" \
    "$(ratio "$m_fast" "$m_theirs") (${m_fast} s; $(kbps "$work/fast.opus") kbit/s)" \
    "tilawa encode --complexity 5 IN OUT.opus"
