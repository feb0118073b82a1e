#!/usr/bin/env bash
# Benchmark (release build): CPU per accepted upload of `tilawa serve` with artifacts in an S3
# store (OpenStack Swift's s3api, scripts/s3-server.sh) against artifacts on disk, both on
# SQLite, side by side in one run: rounds alternate disk, S3, disk, S3 … so the host's drift
# falls on both. Each round: a fresh daemon, N concurrent 3-minute uploads (answer, encode
# job, MP4/CAF variants, peaks), until every job is done. The store's own CPU (its five
# Python processes and memcached) is reported apart. Prints numbers; asserts nothing.
# Usage: scripts/bench-s3.sh [path/to/tilawa] [uploads-per-round] [rounds-per-side]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=$(realpath "${1:-.build/release/tilawa}")
uploads=${2:-16}
rounds=${3:-3}
python=${TEST_PYTHON:-.venv-test/bin/python}
bench_scratch
trap '[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; bash scripts/s3-server.sh stop "$work/s3" >/dev/null 2>&1 || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

make_speech_3min
started=$(bash scripts/s3-server.sh start "$work/s3")
endpoint=$(sed -n 's/^endpoint=//p' <<<"$started")
sed -n 's/^access_key=//p' <<<"$started" > "$work/s3-access"
sed -n 's/^secret_key=//p' <<<"$started" > "$work/s3-secret"
"$python" - "$endpoint" "$(<"$work/s3-access")" "$(<"$work/s3-secret")" <<'EOF'
import sys, botocore.session
client = botocore.session.get_session().create_client(
    "s3", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3], region_name="us-east-1")
client.create_bucket(Bucket="tilawa-bench")
EOF
# The store's processes: their CPU is Swift's, not Tilawa's.
store_pids() { pgrep -f "$work/s3" | tr '\n' ' '; }
store_cpu() { local total=0; for p in $(store_pids); do total=$(echo "$total + $(process_cpu "$p" 2>/dev/null || echo 0)" | bc -l); done; echo "$total"; }

# One round: a fresh state directory, $uploads students, the daemon configured by $1 (disk|s3).
round() {
  local side=$1 n=$2
  rm -rf "$work/var"
  unset TILAWA_ARTIFACTS_URL TILAWA_S3_ENDPOINT TILAWA_S3_ACCESS_KEY_FILE TILAWA_S3_SECRET_KEY_FILE
  if [ "$side" = s3 ]; then
    export TILAWA_ARTIFACTS_URL="s3://tilawa-bench/round-$n" TILAWA_S3_ENDPOINT="$endpoint" \
      TILAWA_S3_ACCESS_KEY_FILE="$work/s3-access" TILAWA_S3_SECRET_KEY_FILE="$work/s3-secret"
  fi
  start_bench_daemon "$uploads"
  issue_tokens "$uploads"
  local cpu0 store0 t0
  cpu0=$(process_cpu "$pid"); store0=$(store_cpu); t0=$(now)
  seq -f 'B%04g' 1 "$uploads" | xargs -P "$uploads" -I{} bash -c "upload {} '$input'" > "$work/answers.txt"
  wait_for_encodes
  local cpu store elapsed accepted
  cpu=$(echo "$(process_cpu "$pid") - $cpu0" | bc -l); store=$(echo "$(store_cpu) - $store0" | bc -l)
  elapsed=$(echo "$(now) - $t0" | bc -l)
  accepted=$(grep -c ' 201$' "$work/answers.txt" || true)
  local on_disk
  on_disk=$(find "$work/var/artifacts" -type f | wc -l)
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  echo "$side $accepted $(ratio "$cpu" "$accepted" 3) $(ratio "$store" "$accepted" 3) $(ratio "$elapsed" 1 1) $on_disk" >> "$work/rounds.txt"
}

for n in $(seq 1 "$rounds"); do round disk "$n"; round s3 "$n"; done

printf 'input: 180 s of 48 kHz mono 16-bit speech, %d bytes; %d concurrent uploads per round; %d rounds per side; %d cores\n' \
  "$(stat -c %s "$input")" "$uploads" "$rounds" "$(nproc)"
printf '%-6s %9s %22s %24s %12s %14s\n' side accepted "tilawa CPU/upload (s)" "store CPU/upload (s)" "round (s)" "files on disk"
while read -r side accepted cpu store elapsed files; do
  printf '%-6s %9s %22s %24s %12s %14s\n' "$side" "$accepted" "$cpu" "$store" "$elapsed" "$files"
done < "$work/rounds.txt"
m_disk=$(awk '$1 == "disk" {print $3}' "$work/rounds.txt" | median)
m_s3=$(awk '$1 == "s3" {print $3}' "$work/rounds.txt" | median)
m_store=$(awk '$1 == "s3" {print $4}' "$work/rounds.txt" | median)
printf '%-52s %10s\n' "tilawa CPU per upload, disk (median, s)" "$m_disk"
printf '%-52s %10s\n' "tilawa CPU per upload, S3 (median, s)" "$m_s3"
printf '%-52s %10s\n' "ratio S3 / disk (tilawa's own CPU)" "$(ratio "$m_s3" "$m_disk" 3)"
printf '%-52s %10s\n' "the store's CPU per upload (s3api + memcached)" "$m_store"
row "tilawa CPU per accepted upload, artifacts in S3 / on disk (SQLite both)" \
    "$(ratio "$m_s3" "$m_disk" 3) (${m_s3} s vs ${m_disk} s; the store's own ${m_store} s apart; target <= 1.05)" \
    "$uploads concurrent 3-min uploads per round, $rounds rounds per side alternating; utime+stime of tilawa serve / accepted"
