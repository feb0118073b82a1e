#!/usr/bin/env bash
# Benchmark, not a test: how long `tilawa status --json` takes on a big installation.
#
#   scripts/bench-status.sh [BIN]        (make bench-status builds the release binary first)
#
# Builds a state directory whose schema comes from the real migrations (`tilawa roster
# import` creates it), then fills it with plain SQL in one transaction: 5,000 students,
# 1,000,000 submissions received one a minute over ~2 years (the last 3 days awaiting
# feedback, originals kept 30 days), a reply, a done encode job, two delivered events and a
# drop-folder record for each, 50,000 refused uploads, and the artifact files of the last
# 7 days (empty: sizes come from the rows). Then times `tilawa status --json` — the daemon
# is down (nothing listens on port 1) — and prints the median. Target: <= 0.3 s.
#
# Environment: BENCH_SUBMISSIONS (1000000), BENCH_STUDENTS (5000), BENCH_RUNS (7),
# BENCH_KEEP=1 to keep the state directory, BENCH_POSTGRES=1 to time it on PostgreSQL too (same rows), BENCH_READY=1 to time the daemon's start to READY on it too,
# BENCH_SWEEP="BIN [BIN…]" to measure the start-up artifact sweep of each binary on it (scripts/bench-sweep.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
root=$(pwd)
bin=$(realpath "${1:-.build/release/tilawa}")
submissions=${BENCH_SUBMISSIONS:-1000000}
students=${BENCH_STUDENTS:-5000}
runs=${BENCH_RUNS:-7}
step=60 # seconds between submissions

for tool in sqlite3 awk xargs; do
  command -v "$tool" >/dev/null || { echo "bench-status: $tool is missing (make deps-tools)" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "bench-status: no binary at $bin (make release)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tilawa-bench-status.XXXXXX")
if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "state directory: $work/var"; else trap 'rm -rf "$work"' EXIT; fi
export TILAWA_STATE_DIR="$work/var" TILAWA_HTTP_HOST=127.0.0.1 TILAWA_HTTP_PORT=1 TZ=UTC
db="$work/var/tilawa.sqlite"

(cd "$work" && "$bin" roster import "$root/config/program.yaml" "$root/config/students.csv" >/dev/null)

now=$(date +%s)
started=$(date +%s.%N)
sqlite3 -bail "$db" >/dev/null <<SQL
PRAGMA journal_mode = DELETE;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -400000;
PRAGMA temp_store = MEMORY;
BEGIN;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $students)
INSERT INTO student (id, name) SELECT printf('B%05d', i), 'Bench Student ' || i FROM n;
-- One fall enrolment each; every 50th student also in spring, and every 100th awaiting placement there.
INSERT INTO enrolment (studentId, semesterId, levelId, coachId, createdAt, placedAt, placedBy)
SELECT id, 'fall-2026', 'L' || (1 + rowid % 4), 'C0' || (1 + rowid % 3), '2026-08-01 00:00:00.000', '2026-08-01 00:00:00.000', 'roster'
FROM student WHERE id LIKE 'B%';
INSERT INTO enrolment (studentId, semesterId, levelId, coachId, createdAt)
SELECT id, 'spring-2027', CASE WHEN rowid % 100 = 0 THEN NULL ELSE 'L2' END, CASE WHEN rowid % 100 = 0 THEN NULL ELSE 'C02' END,
       '2026-12-01 00:00:00.000'
FROM student WHERE id LIKE 'B%' AND rowid % 50 = 0;

-- Submission i was received i minutes before now (i = 1 is the newest).
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $submissions),
s(i, t, month) AS (SELECT i, $now - i * $step, strftime('%Y/%m', $now - i * $step, 'unixepoch') FROM n)
INSERT INTO submission (id, studentId, semesterId, enrolmentId, kind, week, state, receivedAt, feedbackDueAt, late, analysis, source,
                        warnings, originalPath, originalBytes, audioPath, audioBytes, waveformPath, outputGainDB, encodedAt, origin)
SELECT printf('bsub_%07d', i), printf('B%05d', 1 + i % $students), 'fall-2026',
       (SELECT id FROM enrolment WHERE studentId = printf('B%05d', 1 + i % $students) AND semesterId = 'fall-2026'),
       'week', 1 + i % 15,
       CASE WHEN i % 499 = 0 THEN 'superseded' WHEN $now - t < 3 * 86400 THEN 'awaiting_feedback' ELSE 'feedback_ready' END,
       strftime('%Y-%m-%d %H:%M:%f', t, 'unixepoch'), strftime('%Y-%m-%d %H:%M:%f', t + 48 * 3600, 'unixepoch'), i % 7 = 0,
       '{"clipped_ratio":0,"duration_seconds":94.21,"leading_silence_seconds":0.3,"loudness_lufs":-20.34,"peak_dbfs":-3.07,"speech_ratio":0.79,"speech_seconds":74.4,"trailing_silence_seconds":0.67}',
       '{"channels":1,"codec":"aac","container":"mov,mp4,m4a,3gp,3g2,mj2","sample_rate":48000}', '[]',
       CASE WHEN $now - t < 30 * 86400 THEN printf('originals/%s/bsub_%07d.m4a', month, i) END,
       1500000 + (i * 7919) % 3000000,
       printf('submissions/%s/bsub_%07d.opus', month, i), 120000 + (i * 104729) % 400000,
       printf('submissions/%s/bsub_%07d.peaks.json', month, i), -1.5,
       strftime('%Y-%m-%d %H:%M:%f', t + 20, 'unixepoch'), 'http'
FROM s;

INSERT INTO feedback (id, submissionId, coachId, receivedAt, notes, state, analysis, originalPath, audioPath, audioBytes,
                      waveformPath, outputGainDB, origin)
SELECT 'bfb' || substr(s.id, 5), s.id, e.coachId, strftime('%Y-%m-%d %H:%M:%f', s.receivedAt, '+1 day'), NULL, 'ready',
       '{"clipped_ratio":0,"duration_seconds":61.5,"leading_silence_seconds":0.2,"loudness_lufs":-21.0,"peak_dbfs":-4.1,"speech_ratio":0.81,"speech_seconds":49.8,"trailing_silence_seconds":0.5}',
       replace(replace(s.audioPath, 'submissions/', 'originals/'), 'bsub_', 'bfb_'),
       replace(s.audioPath, 'submissions/', 'feedback/'), 90000 + (s.rowid * 31) % 300000,
       replace(s.waveformPath, 'submissions/', 'feedback/'), -2.0, 'dropbox'
FROM submission s JOIN enrolment e ON e.id = s.enrolmentId
WHERE s.state = 'feedback_ready' AND s.id LIKE 'bsub_%';

INSERT INTO job (kind, subjectId, state, attempts, createdAt, notBefore, lockedAt)
SELECT 'encode_submission', id, 'done', 1, receivedAt, '1970-01-01 00:00:00.000', receivedAt FROM submission WHERE id LIKE 'bsub_%';
INSERT INTO job (kind, subjectId, state, attempts, createdAt, notBefore)
SELECT 'encode_submission', id, 'queued', 0, receivedAt, '1970-01-01 00:00:00.000' FROM submission WHERE id LIKE 'bsub_%' ORDER BY receivedAt DESC LIMIT 3;

INSERT INTO event (id, studentId, type, payload, occurredAt, deliveredAt, attempts, nextAttemptAt)
SELECT 'ev_r_' || id, studentId, 'submission_received',
       '{"type":"submission_received","week":{"number":' || week || ',"title":"Surat al-Fatiha"},"submission_id":"' || id || '","deep_link":"quranflow://weeks/' || week || '/submissions/' || id || '"}',
       receivedAt, CASE WHEN receivedAt < strftime('%Y-%m-%d %H:%M:%f', $now - 300, 'unixepoch') THEN receivedAt END, 1, receivedAt
FROM submission WHERE id LIKE 'bsub_%';
INSERT INTO event (id, studentId, type, payload, occurredAt, deliveredAt, attempts, nextAttemptAt)
SELECT 'ev_f_' || f.id, s.studentId, 'feedback_ready',
       '{"type":"feedback_ready","week":{"number":' || s.week || ',"title":"Surat al-Fatiha"},"feedback_id":"' || f.id || '","deep_link":"quranflow://weeks/' || s.week || '/feedback/' || f.id || '"}',
       f.receivedAt, f.receivedAt, 1, f.receivedAt
FROM feedback f JOIN submission s ON s.id = f.submissionId;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $submissions / 20)
INSERT INTO rejection (studentId, slot, receivedAt, code, reasons, message, detail, analysis, origin, bytes)
SELECT printf('B%05d', 1 + (i * 13) % $students), '' || (1 + i % 15), strftime('%Y-%m-%d %H:%M:%f', $now - i * $step * 20 - 7, 'unixepoch'),
       CASE i % 5 WHEN 0 THEN 'too_quiet' WHEN 1 THEN 'silent' WHEN 2 THEN 'attempt_limit' WHEN 3 THEN 'too_short' ELSE 'week_locked' END,
       '[]', 'refused', '', NULL, 'http', 250000
FROM n;

INSERT INTO dropFile (sha256, coachId, fileName, outcome, reason, feedbackId, processedAt)
SELECT lower(hex(randomblob(32))), coachId, 'reply.m4a', 'processed', NULL, id, receivedAt FROM feedback;

INSERT INTO meta (key, value, updatedAt) VALUES ('missing_artifacts_total', 0, strftime('%Y-%m-%d %H:%M:%f', $now - 3 * 3600, 'unixepoch'))
ON CONFLICT(key) DO UPDATE SET value = excluded.value, updatedAt = excluded.updatedAt;
COMMIT;
PRAGMA journal_mode = WAL;
SQL
generated=$(date +%s.%N)

# The files of the last 7 days, which status checks on every run.
since=$(date -u -d "@$((now - 7 * 86400))" '+%Y-%m-%d %H:%M:%S')
sqlite3 "$db" "SELECT originalPath FROM submission WHERE receivedAt >= '$since' AND originalPath IS NOT NULL
               UNION ALL SELECT audioPath FROM submission WHERE receivedAt >= '$since'
               UNION ALL SELECT waveformPath FROM submission WHERE receivedAt >= '$since'
               UNION ALL SELECT originalPath FROM feedback WHERE receivedAt >= '$since'
               UNION ALL SELECT audioPath FROM feedback WHERE receivedAt >= '$since'
               UNION ALL SELECT waveformPath FROM feedback WHERE receivedAt >= '$since'" > "$work/recent.txt"
(cd "$work/var/artifacts" && sed 's|/[^/]*$||' "$work/recent.txt" | sort -u | xargs -r mkdir -p && xargs -r -d '\n' touch < "$work/recent.txt")

rows=$(sqlite3 "$db" "SELECT (SELECT COUNT(*) FROM submission) || ' submissions, ' || (SELECT COUNT(*) FROM student) || ' students, '
                      || (SELECT COUNT(*) FROM feedback) || ' replies, ' || (SELECT COUNT(*) FROM event) || ' events, '
                      || (SELECT COUNT(*) FROM job) || ' jobs, ' || (SELECT COUNT(*) FROM rejection) || ' rejections'")
size=$(du -h "$db" | cut -f1)
echo "database: $rows; $size; generated in $(awk "BEGIN { printf \"%.1f\", $generated - $started }") s"
echo "files checked: $(wc -l < "$work/recent.txt") artifact files of the last 7 days"

cd "$work"
# time_status LABEL: the cold run, then the median of $runs, of `tilawa status --json` as the environment says.
time_status() {
  local label=$1 times=() code=0 t0 t1 seconds
  for run in $(seq 0 "$runs"); do
    t0=$(date +%s%N)
    code=0
    "$bin" status --json > "$work/status.json" || code=$?
    t1=$(date +%s%N)
    [ "$code" -le 3 ] || { echo "bench-status: tilawa status failed with $code" >&2; cat "$work/status.json" >&2; exit 1; }
    seconds=$(awk "BEGIN { printf \"%.3f\", ($t1 - $t0) / 1e9 }")
    if [ "$run" = 0 ]; then
      echo "$label: first run (cold cache): ${seconds} s, exit $code"
    else
      times+=("$seconds")
    fi
  done
  local state median
  state=$(sed -n 's/^  "state" : "\(.*\)",\{0,1\}$/\1/p' "$work/status.json")
  median=$(printf '%s\n' "${times[@]}" | median)
  echo "$label: runs: ${times[*]} (s)"
  echo "$label: tilawa status --json: median ${median} s over $runs runs (target <= 0.3 s); report state: ${state}, exit $code"
  row "tilawa status on $submissions submissions, $students students ($label)" "median ${median} s (target <= 0.3 s)" \
      "tilawa status --json, daemon down, median of $runs after a cold run"
}
time_status sqlite

# BENCH_POSTGRES=1: the same rows in a throw-away PostgreSQL 15 (scripts/pg-server.sh; fsync off,
# which reads do not feel), schema by the daemon's migrations, rows copied; status timed there.
if [ "${BENCH_POSTGRES:-0}" = 1 ]; then
  pg="$work/pg"
  chmod o+x "$work" # the server runs as `nobody` under root (scripts/pg-server.sh)
  url=$("$root/scripts/pg-server.sh" start "$pg" | sed -n 's/^url=//p')
  trap '"$root/scripts/pg-server.sh" stop "$pg"; [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
  (cd "$work" && TILAWA_DATABASE_URL=$url "$bin" roster import "$root/config/program.yaml" "$root/config/students.csv" >/dev/null)
  copied=$(date +%s.%N)
  "$root/scripts/sqlite-to-postgres.py" "$db" "$url"
  echo "postgres: rows copied in $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $copied }") s"
  TILAWA_DATABASE_URL=$url time_status postgres
fi
if [ "${BENCH_READY:-0}" = 1 ]; then
  "$root/scripts/bench-ready.sh" "$bin" "$work/var" "$submissions submissions"
fi
if [ -n "${BENCH_SWEEP:-}" ]; then
  # BENCH_SWEEP="BIN [BIN…]": the daemon's start-up sweep on a copy of this database, each binary.
  "$root/scripts/bench-sweep.sh" "$work/var" ${BENCH_SWEEP}
fi
