#!/usr/bin/env bash
# Benchmark, not a test: `tilawa backup create` on a big installation (issue "nothing lost").
#
#   scripts/bench-backup.sh [BIN]        (make bench-backup builds the release binary first)
#
# 1. The database part: the million-row state of scripts/bench-status.sh (its artifact files
#    are empty placeholders, so this times the snapshot, the reference walk and the manifest).
# 2. The file part: a state with one real recording ingested (its original, Ogg and waveform)
#    and its MP4 and CAF variants (the encoder's, or remuxed by ffmpeg here when the encoder
#    left one to the audio route's first request), cloned BENCH_FILES times (rows by SQL, files by cp): a first backup
#    (copies, MB/s), then a second one with --previous (hard links), side by side.
#    BENCH_RECORDING=short takes the 10-second fixture (many files, per-file costs);
#    BENCH_RECORDING=3min a 3-minute recitation-length recording sent as a phone's 64 kb/s AAC
#    M4A (real sizes, per-byte costs: about 3.3 MB a recording with its variants).
#
# Environment: BENCH_FILES (10000 recordings), BENCH_SUBMISSIONS (1000000), BENCH_SKIP_DB=1,
# BENCH_RECORDING (short).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
bin=$(realpath "${1:-.build/release/tilawa}")
files=${BENCH_FILES:-10000}
[ -x "$bin" ] || { echo "bench-backup: no binary at $bin (make release)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tilawa-bench-backup.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ "${BENCH_SKIP_DB:-0}" != 1 ]; then
  state=$(BENCH_KEEP=1 BENCH_RUNS=1 scripts/bench-status.sh "$bin" | sed -n 's/^state directory: //p')
  start=$(now)
  TILAWA_STATE_DIR="$state" "$bin" backup create "$work/db-backup" --no-verify >"$work/db.out" 2>/dev/null || true
  end=$(now)
  rows=$(sqlite3 "$state/tilawa.sqlite" "SELECT COUNT(*) FROM submission")
  echo "database part: $rows submissions, $(du -sh "$state/tilawa.sqlite" | cut -f1) database, backup $(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}') s"
  rm -rf "$(dirname "$state")" "$work/db-backup"
fi

export TILAWA_STATE_DIR="$work/var" TZ=UTC
"$bin" roster import config/program.yaml config/students.csv >/dev/null
recording=audio-fixtures/speech.opus
if [ "${BENCH_RECORDING:-short}" = 3min ]; then
  parts=(); for _ in $(seq 1 20); do parts+=(audio-fixtures/speech_mono_s16_48k.wav); done
  sox "${parts[@]}" "$work/speech-3min.wav" trim 0 180
  ffmpeg -v error -nostdin -i "$work/speech-3min.wav" -c:a aac -b:a 64k "$work/speech-3min.m4a"
  recording="$work/speech-3min.m4a"
fi
faketime '2026-11-22 15:00:00' "$bin" ingest --student S1001 --week 12 "$recording" >/dev/null
read -r id original audio waveform < <(sqlite3 -separator ' ' "$work/var/tilawa.sqlite" \
  "SELECT id, originalPath, audioPath, waveformPath FROM submission LIMIT 1")
art="$work/var/artifacts"
variants=("${audio%.opus}.m4a" "${audio%.opus}.caf")
[ -e "$art/${variants[0]}" ] || ffmpeg -v error -nostdin -i "$art/$audio" -c:a copy -f mp4 "$art/${variants[0]}"
[ -e "$art/${variants[1]}" ] || ffmpeg -v error -nostdin -i "$art/$audio" -c:a copy -f caf "$art/${variants[1]}"
per=0
for p in "$original" "$audio" "$waveform" "${variants[@]}"; do per=$(( per + $(stat -c %s "$art/$p") )); done
# The clone's column list comes from the schema, so a new column never breaks it.
columns=$(sqlite3 "$work/var/tilawa.sqlite" "SELECT group_concat(name, ', ') FROM pragma_table_info('submission')")
{
  echo "BEGIN;"
  for i in $(seq 1 "$files"); do
    n=$(printf '%s_%06d' "$id" "$i")
    select=$(echo "$columns" | sed -e "s/\bid\b/'$n'/" -e "s/\bstate\b/'superseded'/" \
      -e "s/\b\(originalPath\|audioPath\|waveformPath\)\b/replace(\1, '$id', '$n')/g")
    echo "INSERT INTO submission ($columns) SELECT $select FROM submission WHERE id = '$id';"
  done
  echo "COMMIT;"
} | sqlite3 "$work/var/tilawa.sqlite"
for i in $(seq 1 "$files"); do
  n=$(printf '%s_%06d' "$id" "$i")
  for p in "$original" "$audio" "$waveform" "${variants[@]}"; do cp "$art/$p" "$art/${p//$id/$n}"; done
done
sync
bytes=$(( per * (files + 1) ))
# Cold: the first backup reads what a real installation's disk holds, not the page cache
# the cloning just filled (root only; says which it measured).
cache="warm page cache"
if [ -w /proc/sys/vm/drop_caches ] && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then cache="page cache dropped first"; fi
start=$(now); "$bin" backup create "$work/first" --no-verify >/dev/null; end=$(now)
first=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}')
start=$(now); "$bin" backup create "$work/second" --previous "$work/first" --no-verify >/dev/null; end=$(now)
second=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}')
start=$(now); "$bin" backup verify "$work/second" >/dev/null; end=$(now)
verify=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}')
printf 'file part: %d recordings x 5 files (%s), %.1f MB\n' "$((files + 1))" "${BENCH_RECORDING:-short}" "$(awk -v b="$bytes" 'BEGIN{print b/1e6}')"
printf '  first backup (copies, %s)  %6s s  %6.1f MB/s\n' "$cache" "$first" "$(awk -v b="$bytes" -v t="$first" 'BEGIN{print b/1e6/t}')"
printf '  second backup (hard links)   %6s s  (%s x faster)\n' "$second" "$(ratio "$first" "$second" 1)"
printf '  verify (re-hash)             %6s s  %6.1f MB/s\n' "$verify" "$(awk -v b="$bytes" -v t="$verify" 'BEGIN{print b/1e6/t}')"
