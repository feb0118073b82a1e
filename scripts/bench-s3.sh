#!/usr/bin/env bash
# Benchmark (release build): CPU per accepted upload of `tilawa serve` with artifacts in an S3
# store (OpenStack Swift's s3api, scripts/s3-server.sh) against artifacts on disk, both on
# SQLite, side by side in one run: rounds alternate disk, S3, disk, S3 … so the host's drift
# falls on both. Each round: a fresh daemon, N concurrent 3-minute uploads (answer, encode
# job, MP4/CAF variants, peaks), until every job is done. The store's own CPU (its five
# Python processes and memcached) is reported apart. Prints numbers; asserts nothing.
# BENCH_POSTGRES=1 adds a third side, `pg`: PostgreSQL 15 (scripts/pg-server.sh, a database
# per round) and the S3 store, against SQLite and the disk; PostgreSQL's CPU (its postmaster,
# its backends, and the ones that exited) is reported apart too.
# Usage: scripts/bench-s3.sh [path/to/tilawa] [uploads-per-round] [rounds-per-side]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=$(realpath "${1:-.build/release/tilawa}")
uploads=${2:-16}
rounds=${3:-3}
python=${TEST_PYTHON:-.venv-test/bin/python}
bench_scratch
trap '[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; bash scripts/s3-server.sh stop "$work/s3" >/dev/null 2>&1 || true; bash scripts/pg-server.sh stop "$work/pg" >/dev/null 2>&1 || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
postgres=${BENCH_POSTGRES:-0}

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

# PostgreSQL's CPU so far: the postmaster's own and its reaped children's, plus its live backends'.
pg_cpu() {
  [ "$postgres" = 1 ] || { echo 0; return; }
  local master total
  master=$(head -1 "$work/pg/data/postmaster.pid")
  total=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15 + $16 + $17) / hz}' "/proc/$master/stat")
  for p in $(pgrep -P "$master"); do total=$(echo "$total + $(process_cpu "$p" 2>/dev/null || echo 0)" | bc -l); done
  echo "$total"
}
if [ "$postgres" = 1 ]; then
  chmod o+x "$work" # the server runs as `nobody` under root (scripts/pg-server.sh)
  pg_url=$(bash scripts/pg-server.sh start "$work/pg" | sed -n 's/^url=//p')
fi

# One round: a fresh state directory, $uploads students, the daemon configured by $1 (disk|s3).
round() {
  local side=$1 n=$2
  rm -rf "$work/var"
  unset TILAWA_ARTIFACTS_URL TILAWA_S3_ENDPOINT TILAWA_S3_ACCESS_KEY_FILE TILAWA_S3_SECRET_KEY_FILE TILAWA_DATABASE_URL
  if [ "$side" = pg ]; then
    psql -q "$pg_url" -c "CREATE DATABASE round_$n" >/dev/null
    export TILAWA_DATABASE_URL="${pg_url%/*}/round_$n"
  fi
  if [ "$side" = s3 ] || [ "$side" = pg ]; then
    export TILAWA_ARTIFACTS_URL="s3://tilawa-bench/$side-$n" TILAWA_S3_ENDPOINT="$endpoint" \
      TILAWA_S3_ACCESS_KEY_FILE="$work/s3-access" TILAWA_S3_SECRET_KEY_FILE="$work/s3-secret"
  fi
  start_bench_daemon "$uploads"
  issue_tokens "$uploads"
  local cpu0 store0 t0
  local pg0
  cpu0=$(process_cpu "$pid"); store0=$(store_cpu); pg0=$(pg_cpu); t0=$(now)
  seq -f 'B%04g' 1 "$uploads" | xargs -P "$uploads" -I{} bash -c "upload {} '$input'" > "$work/answers.txt"
  wait_for_encodes
  local cpu store elapsed accepted
  local database
  cpu=$(echo "$(process_cpu "$pid") - $cpu0" | bc -l); store=$(echo "$(store_cpu) - $store0" | bc -l)
  database=$(echo "$(pg_cpu) - $pg0" | bc -l)
  elapsed=$(echo "$(now) - $t0" | bc -l)
  accepted=$(grep -c ' 201$' "$work/answers.txt" || true)
  local on_disk
  on_disk=$(find "$work/var/artifacts" -type f | wc -l)
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  echo "$side $accepted $(ratio "$cpu" "$accepted" 3) $(ratio "$store" "$accepted" 3) $(ratio "$elapsed" 1 1) $on_disk $(ratio "$database" "$accepted" 3)" >> "$work/rounds.txt"
}

for n in $(seq 1 "$rounds"); do
  round disk "$n"; round s3 "$n"
  if [ "$postgres" = 1 ]; then round pg "$n"; fi
done

printf 'input: 180 s of 48 kHz mono 16-bit speech, %d bytes; %d concurrent uploads per round; %d rounds per side; %d cores\n' \
  "$(stat -c %s "$input")" "$uploads" "$rounds" "$(nproc)"
printf '%-6s %9s %22s %24s %22s %12s %14s\n' side accepted "tilawa CPU/upload (s)" "store CPU/upload (s)" "PostgreSQL CPU/upload" "round (s)" "files on disk"
while read -r side accepted cpu store elapsed files database; do
  printf '%-6s %9s %22s %24s %22s %12s %14s\n' "$side" "$accepted" "$cpu" "$store" "$database" "$elapsed" "$files"
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
if [ "$postgres" = 1 ]; then
  m_pg=$(awk '$1 == "pg" {print $3}' "$work/rounds.txt" | median)
  m_pg_store=$(awk '$1 == "pg" {print $4}' "$work/rounds.txt" | median)
  m_pg_db=$(awk '$1 == "pg" {print $7}' "$work/rounds.txt" | median)
  printf '%-52s %10s\n' "tilawa CPU per upload, PostgreSQL + S3 (median, s)" "$m_pg"
  printf '%-52s %10s\n' "ratio PostgreSQL + S3 / SQLite + disk (tilawa's own)" "$(ratio "$m_pg" "$m_disk" 3)"
  printf '%-52s %10s\n' "PostgreSQL's CPU per upload (server, backends)" "$m_pg_db"
  printf '%-52s %10s\n' "the store's CPU per upload with PostgreSQL" "$m_pg_store"
  row "tilawa CPU per accepted upload, PostgreSQL + S3 / SQLite + disk" \
      "$(ratio "$m_pg" "$m_disk" 3) (${m_pg} s vs ${m_disk} s; PostgreSQL's own ${m_pg_db} s and the store's ${m_pg_store} s apart; target <= 1.05)" \
      "$uploads concurrent 3-min uploads per round, $rounds rounds per side alternating; utime+stime of tilawa serve / accepted"
fi
