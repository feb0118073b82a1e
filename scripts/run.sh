#!/usr/bin/env bash
# `make run`: imports the demo programme (the sample one, its semester three weeks old whatever
# the date) into ./var, seeds it once through the daemon, prints a ready-to-paste upload line with a
# fresh student token and a login link to the coach's desk, and runs the daemon in the foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
tilawa=${1:-.build/debug/tilawa}
export TILAWA_STATE_DIR=${TILAWA_STATE_DIR:-./var}
port=${TILAWA_HTTP_PORT:-8080}

# The demo programme: the sample one with a semester that began three weeks before today (in
# the programme's zone; DEMO_TODAY=YYYY-MM-DD to pretend another day), so week 4 is open in
# any month. Generated into the state directory and imported (idempotent for the same day).
demo="$TILAWA_STATE_DIR/demo"
today=${DEMO_TODAY:-$(TZ=America/New_York date +%F)}
mkdir -p "$TILAWA_STATE_DIR"
python3 scripts/demo-programme.py "$today" "$demo"
"$tilawa" roster import "$demo/program.yaml" "$demo/students.csv"
week=$(<"$demo/week")
# Omar (L1, coach C02) has both attempts of the week free: the line below is accepted.
student=S1002
token=$("$tilawa" token issue --student "$student" --ttl 12h)
ops=$("$tilawa" token issue --ops "$(id -un)" --ttl 12h)
# A one-time login link to the coach's desk for coach C01 (15 minutes, one use).
desk=$(TILAWA_HTTP_PORT=$port "$tilawa" token issue --coach C01 --link)
what="week ${week}"
# Once per state directory, through the daemon once it listens: recordings, a reply, a question.
if [ ! -f "$TILAWA_STATE_DIR/demo-seeded" ]; then
  scripts/demo-seed.sh "$tilawa" "$port" "$week" > "$TILAWA_STATE_DIR/demo-seed.log" 2>&1 &
  seeding="Seeding the demo (a few recordings, a reply, a question) as soon as the daemon listens."
else
  seeding="The demo was seeded before; nothing is seeded twice."
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
${seeding}
Stop with Ctrl-C.

TXT
exec "$tilawa" serve
