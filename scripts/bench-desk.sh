#!/usr/bin/env bash
# Benchmark: the coach's desk in headless Chromium (Debian's chromium and chromedriver, Selenium
# from the test virtual environment) against a release daemon on loopback, with a queue of 500
# recordings and one of 15 minutes. "Ready" is navigation start to the first queue row painted
# (Element Timing); "click-to-sound" is the play click to the `playing` event with currentTime
# advancing, from the start and after a seek to 10:00 (a Range request into the file).
# Targets: ready < 500 ms, click-to-sound < 200 ms.
# Usage: scripts/bench-desk.sh [path/to/tilawa]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=$(realpath "${1:-.build/release/tilawa}")
bench_scratch
start_bench_daemon 500

# 15 minutes of speech (the mono fixture repeated), 14:50 to stay under the 15-minute limit.
parts=(); for _ in $(seq 1 82); do parts+=(audio-fixtures/speech_mono_s16_48k.wav); done
sox "${parts[@]}" "$work/long.wav" trim 0 890
issue_tokens 500
long=$(curl -fs -X POST -H "Authorization: Bearer $(<"$work/tokens/B0500")" -H "Content-Type: audio/wav" -H 'Expect:' \
  --data-binary @"$work/long.wav" "http://127.0.0.1:$port/v1/students/B0500/weeks/assessment/submissions" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
# 499 more recordings, one per student (placement assessments: they use no attempt).
seq -f 'B%04g' 1 499 | xargs -P 4 -I{} bash -c 'upload {} audio-fixtures/speech.opus' > "$work/uploads.txt"
wait_for_encodes
waiting=$(sqlite3 "$work/var/tilawa.sqlite" "SELECT COUNT(*) FROM submission WHERE state = 'awaiting_feedback'")
echo "queue: $waiting recordings awaiting C01's reply; the long one is $long"

link=$("$tilawa" token issue --coach C01 --link)
.venv-test/bin/python scripts/bench-desk.py "$link" "http://127.0.0.1:$port" "$long" "$waiting" | tee "$work/desk.txt"
ready=$(awk '/^ready/ {print $2}' "$work/desk.txt")
start=$(awk '/^click-to-sound-start/ {print $2}' "$work/desk.txt")
seeked=$(awk '/^click-to-sound-seek/ {print $2}' "$work/desk.txt")
row "desk ready, queue of $waiting (target < 500 ms)" "$ready ms" "make bench-desk: headless Chromium, navigation start to the first row painted, median of 7"
row "desk click-to-sound, 15-min recording (target < 200 ms)" "$start ms from 0:00, $seeked ms at 10:00" "make bench-desk: play click to playing with currentTime advancing, median of 7"
