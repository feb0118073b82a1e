#!/usr/bin/env bash
# `make run`: imports the sample programme into ./var (idempotent), prints a ready-to-paste
# upload line with a fresh student token and a login link to the coach's desk, and runs the
# daemon in the foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
tilawa=${1:-.build/debug/tilawa}
export TILAWA_STATE_DIR=${TILAWA_STATE_DIR:-./var}
port=${TILAWA_HTTP_PORT:-8080}

"$tilawa" roster import config/program.yaml config/students.csv
student=S1001
token=$("$tilawa" token issue --student "$student" --ttl 12h)
ops=$("$tilawa" token issue --ops --ttl 12h)
# A one-time login link to the coach's desk for the student's coach (15 minutes, one use).
desk=$(TILAWA_HTTP_PORT=$port "$tilawa" token issue --coach C01 --link)
# The current week of the sample semester (the newest one unlocked), so the upload is accepted;
# before the semester opens or once it has closed (15 weeks + 7 days + 14 days of catch-up),
# the placement assessment, which is open any time.
days=$(( ($(TZ=America/New_York date +%s) - $(TZ=America/New_York date -d 2026-09-05 +%s)) / 86400 ))
if (( days < 0 || days >= 14 * 7 + 7 + 14 )); then
  week=assessment
  what="the placement assessment"
else
  week=$(( days / 7 + 1 ))
  (( week > 15 )) && week=15
  what="week ${week}"
fi

cat <<TXT

Tilawa is starting on http://127.0.0.1:${port} with its state in ${TILAWA_STATE_DIR}.
Upload a recording as student ${student} for ${what} (paste in another terminal):

  curl -sS -X POST -H 'Authorization: Bearer ${token}' -H 'Content-Type: audio/wav' -H 'Expect:' \\
    --data-binary @audio-fixtures/speech_mono_s16_48k.wav \\
    http://127.0.0.1:${port}/v1/students/${student}/weeks/${week}/submissions

Then listen to it (the id is in the answer):  curl -sS -H 'Authorization: Bearer ${token}' -o reply.opus \\
    http://127.0.0.1:${port}/v1/submissions/<id>/audio
Operations:  curl -sS -H 'Authorization: Bearer ${ops}' http://127.0.0.1:${port}/v1/status
The coach's desk, as coach C01 (open within 15 minutes; a new one: tilawa token issue --coach C01 --link):
  ${desk}
Stop with Ctrl-C.

TXT
exec "$tilawa" serve
