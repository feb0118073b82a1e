#!/usr/bin/env bash
# Benchmark: `tilawa encode` against `opusenc --bitrate 32` on the same 3-minute, 48 kHz mono
# speech WAV, alternating runs, and prints both medians, their ratio and both bitrates.
# Usage: scripts/bench-encode.sh [path/to/tilawa] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
tilawa=${1:-.build/release/tilawa}
runs=${2:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 3 minutes of speech: the mono fixture repeated and cut to exactly 180 s.
src=audio-fixtures/speech_mono_s16_48k.wav
parts=()
for _ in $(seq 1 20); do parts+=("$src"); done
sox "${parts[@]}" "$work/speech-3min.wav" trim 0 180
input="$work/speech-3min.wav"
seconds=$(soxi -D "$input")

now() { date +%s.%N; }
ours=(); theirs=(); fast=()
for run in $(seq 1 "$runs"); do
  t0=$(now); "$tilawa" encode "$input" "$work/ours.opus" >/dev/null; t1=$(now)
  opusenc --quiet --bitrate 32 "$input" "$work/theirs.opus"; t2=$(now)
  "$tilawa" encode --complexity 5 "$input" "$work/fast.opus" >/dev/null; t3=$(now)
  ours+=("$(echo "$t1 - $t0" | bc -l)"); theirs+=("$(echo "$t2 - $t1" | bc -l)"); fast+=("$(echo "$t3 - $t2" | bc -l)")
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
m_ours=$(median "${ours[@]}"); m_theirs=$(median "${theirs[@]}"); m_fast=$(median "${fast[@]}")
kbps() { echo "scale=1; $(stat -c %s "$1") * 8 / $seconds / 1000" | bc -l; }

printf 'input: %.1f s of 48 kHz mono speech, %s runs each, alternating\n' "$seconds" "$runs"
printf '%-34s %10s %12s %12s\n' "encoder" "median s" "x realtime" "kbit/s"
printf '%-34s %10.3f %12.1f %12s\n' "tilawa encode (analysis + encode)" "$m_ours" "$(echo "$seconds / $m_ours" | bc -l)" "$(kbps "$work/ours.opus")"
printf '%-34s %10.3f %12.1f %12s\n' "opusenc --bitrate 32" "$m_theirs" "$(echo "$seconds / $m_theirs" | bc -l)" "$(kbps "$work/theirs.opus")"
printf '%-34s %10.3f %12.1f %12s\n' "tilawa encode --complexity 5" "$m_fast" "$(echo "$seconds / $m_fast" | bc -l)" "$(kbps "$work/fast.opus")"
printf 'time ratio tilawa/opusenc (both complexity 10): %.3f\n' "$(echo "$m_ours / $m_theirs" | bc -l)"
printf 'time ratio tilawa --complexity 5 (voice)/opusenc: %.3f\n' "$(echo "$m_fast / $m_theirs" | bc -l)"
