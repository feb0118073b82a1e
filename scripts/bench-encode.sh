#!/usr/bin/env bash
# Benchmark: `tilawa encode` against `opusenc --bitrate 32` on the same 3-minute, 48 kHz mono
# speech WAV, in pairs whose order alternates. Per run: CPU seconds (user + sys: `tilawa
# encode` runs two threads, so its wall time hides CPU), wall seconds and peak RSS. Prints the
# medians and their ratios, the median of the per-pair CPU ratios, peak RSS growth over an
# idle `tilawa --help`, both bitrates, whether the Opus packets are identical, and PESQ-WB of
# both files against the source (PyPI's `pesq`, in .venv-bench; skipped, saying so, when it
# cannot be installed). Then `tilawa encode --complexity 5` once per pair for the record, and the
# CPU ratio again from perf samples, which the host's speed drift cannot skew (bench-lib.sh).
# Then the guard: exits 1, saying which, when the CPU ratio (by libopus share where perf
# samples, else the median of the pairs' ratios) is past BENCH_ENCODE_MAX_CPU (1.08) or the wall ratio past BENCH_ENCODE_MAX_WALL (1.04), the
# bounds of the encode path at the libopus floor (issue 48): a change that costs CPU on every
# recording is seen the day it lands. Run it on a quiet machine; on a busy one the ratios say
# more about the neighbours than about the encoder.
# Usage: scripts/bench-encode.sh [path/to/tilawa] [pairs]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=${1:-.build/release/tilawa}
pairs=${2:-11}
bench_scratch

make_speech_3min
seconds=$(soxi -D "$input")

# run NAME COMMAND...: appends "cpu wall rss_kib" of one run to $work/NAME.
run() {
  local name=$1; shift
  /usr/bin/time -f '%U %S %e %M' -o "$work/time" "$@" >/dev/null
  awk '{printf "%.3f %.3f %d\n", $1 + $2, $3, $4}' "$work/time" >> "$work/$name"
}
column() { cut -d' ' -f"$1" "$work/$2" | median; }

for _ in 1 2 3; do run idle "$tilawa" --help; done
for pair in $(seq 1 "$pairs"); do
  if (( pair % 2 )); then
    run ours "$tilawa" encode "$input" "$work/ours.opus"
    run theirs opusenc --quiet --bitrate 32 "$input" "$work/theirs.opus"
  else
    run theirs opusenc --quiet --bitrate 32 "$input" "$work/theirs.opus"
    run ours "$tilawa" encode "$input" "$work/ours.opus"
  fi
  run fast "$tilawa" encode --complexity 5 "$input" "$work/fast.opus"
done

# The same ratio from perf samples (bench-lib.sh: libopus_share), 5 more alternating pairs.
share_note="not measured (perf cannot sample here)"
if perf_sampling; then
  for _ in 1 2 3 4 5; do
    perf_run "$work/ours.samples" "$tilawa" encode "$input" "$work/ours.opus"
    perf_run "$work/theirs.samples" opusenc --quiet --bitrate 32 "$input" "$work/theirs.opus"
  done
  share_note=$(libopus_ratio "$work/ours.samples" "$work/theirs.samples" tilawa)
fi

cpu_ours=$(column 1 ours); cpu_theirs=$(column 1 theirs); cpu_fast=$(column 1 fast)
wall_ours=$(column 2 ours); wall_theirs=$(column 2 theirs)
rss_ours=$(column 3 ours); rss_theirs=$(column 3 theirs); rss_idle=$(column 3 idle)
pair_ratio=$(paste -d' ' "$work/ours" "$work/theirs" | awk '{print $1 / $4}' | median)
kbps() { echo "scale=2; $(stat -c %s "$1") * 8 / $seconds / 1000" | bc -l; }
packets() { ffmpeg -loglevel error -i "$1" -c copy -f framemd5 - | grep -v '^#' | md5sum | cut -d' ' -f1; }
same_packets=$([ "$(packets "$work/ours.opus")" = "$(packets "$work/theirs.opus")" ] && echo yes || echo no)

# PESQ-WB (ITU-T P.862.2) of each decoded file against the source, both at 16 kHz.
pesq_note="not measured"
venv=.venv-bench
if [ -x "$venv/bin/python" ] || python3 -m venv "$venv" >/dev/null 2>&1; then
  if "$venv/bin/python" -c 'import pesq, numpy' 2>/dev/null ||
     "$venv/bin/python" -m pip install --quiet --disable-pip-version-check pesq==0.0.4 numpy==2.4.6 </dev/null >/dev/null 2>&1; then
    sox "$input" -r 16000 "$work/ref16.wav"
    opusdec --quiet --no-dither --rate 16000 "$work/ours.opus" "$work/ours16.wav"
    opusdec --quiet --no-dither --rate 16000 "$work/theirs.opus" "$work/theirs16.wav"
    pesq_note=$("$venv/bin/python" - "$work/ref16.wav" "$work/ours16.wav" "$work/theirs16.wav" <<'PY'
import sys, wave, numpy
from pesq import pesq
def read(path):
    with wave.open(path) as f:
        return numpy.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(numpy.float64)
ref = read(sys.argv[1])
ours, theirs = (read(p)[: len(ref)] for p in sys.argv[2:4])
a, b = pesq(16000, ref[: len(ours)], ours, "wb"), pesq(16000, ref[: len(theirs)], theirs, "wb")
print(f"{a:.3f} vs {b:.3f} (difference {a - b:+.3f})")
PY
) || pesq_note="not measured (pesq failed)"
  else
    pesq_note="not measured (pip could not install pesq)"
  fi
fi

printf 'input: %.1f s of 48 kHz mono speech; %s pairs, order alternating; %s cores\n' "$seconds" "$pairs" "$(nproc)"
printf '%-44s %10s %10s %10s\n' "" "tilawa" "opusenc" "ratio"
printf '%-44s %10s %10s %10s\n' "CPU s (user+sys), median" "$cpu_ours" "$cpu_theirs" "$(ratio "$cpu_ours" "$cpu_theirs" 3)"
printf '%-44s %10s %10s %10s\n' "CPU ratio, median of the pairs' ratios" "" "" "$(ratio "$pair_ratio" 1 3)"
printf '%-44s %s\n' "CPU ratio by libopus share (perf, drift-free)" "$share_note"
printf '%-44s %10s %10s %10s\n' "wall s, median" "$wall_ours" "$wall_theirs" "$(ratio "$wall_ours" "$wall_theirs" 3)"
printf '%-44s %10s %10s\n' "peak RSS MiB, median" "$(ratio "$rss_ours" 1024 1)" "$(ratio "$rss_theirs" 1024 1)"
printf '%-44s %10s\n' "peak RSS growth over tilawa --help (MiB)" "$(ratio "$((rss_ours - rss_idle))" 1024 1)"
printf '%-44s %10s %10s %10s\n' "bitrate kbit/s" "$(kbps "$work/ours.opus")" "$(kbps "$work/theirs.opus")" "$(ratio "$(kbps "$work/ours.opus")" "$(kbps "$work/theirs.opus")" 3)"
printf '%-44s %10s\n' "identical Opus packets" "$same_packets"
printf '%-44s %s\n' "PESQ-WB against the source" "$pesq_note"
printf '%-44s %10s %10s %10s\n' "tilawa --complexity 5: CPU s, median" "$cpu_fast" "" "$(ratio "$cpu_fast" "$cpu_theirs" 3)"

row "encode 3 min speech: tilawa / opusenc CPU" \
    "$(ratio "$cpu_ours" "$cpu_theirs" 3) (${cpu_ours} s vs ${cpu_theirs} s; by libopus share $share_note; wall $(ratio "$wall_ours" "$wall_theirs" 3); $(kbps "$work/ours.opus") vs $(kbps "$work/theirs.opus") kbit/s; same packets: $same_packets; PESQ-WB $pesq_note)" \
    "tilawa encode IN OUT.opus vs opusenc --bitrate 32 IN OUT.opus, $pairs alternating pairs, medians of user+sys"
row "encode, complexity 5: tilawa / opusenc CPU" \
    "$(ratio "$cpu_fast" "$cpu_theirs" 3) (${cpu_fast} s; $(kbps "$work/fast.opus") kbit/s)" \
    "tilawa encode --complexity 5 IN OUT.opus"

# The guard.
max_cpu=${BENCH_ENCODE_MAX_CPU:-1.08}
max_wall=${BENCH_ENCODE_MAX_WALL:-1.04}
# The CPU figure guarded is the libopus-share ratio where perf samples (both encoders give
# libopus the same work, so it is the ratio of the whole CPU, and the host's speed drift,
# which moves the timed medians by a point either way between runs, cannot move it); else the
# median of the pairs' ratios.
cpu_ratio=$(ratio "$pair_ratio" 1 3); cpu_source="median of the pairs' ratios"
if [[ "$share_note" =~ ^([0-9]+\.[0-9]+)\  ]]; then cpu_ratio=${BASH_REMATCH[1]}; cpu_source="by libopus share"; fi
wall_ratio=$(ratio "$wall_ours" "$wall_theirs" 3)
verdict=0
if awk -v r="$cpu_ratio" -v m="$max_cpu" 'BEGIN { exit !(r > m) }'; then
  echo "FAIL: tilawa encode costs $cpu_ratio× opusenc's CPU ($cpu_source), past the bound of $max_cpu× (BENCH_ENCODE_MAX_CPU)"
  verdict=1
fi
if awk -v r="$wall_ratio" -v m="$max_wall" 'BEGIN { exit !(r > m) }'; then
  echo "FAIL: tilawa encode takes $wall_ratio× opusenc's wall time, past the bound of $max_wall× (BENCH_ENCODE_MAX_WALL)"
  verdict=1
fi
[ "$verdict" = 0 ] && echo "within bounds: CPU $cpu_ratio× ($cpu_source; bound $max_cpu×), wall $wall_ratio× (bound $max_wall×)"
exit "$verdict"
