#!/usr/bin/env bash
# Seeds the demo programme through the running daemon, as its people would: recordings for the
# open week and the one before, a coach's reply and a student's question about it — so a
# newcomer's first look at the desk and the app has a queue, a reply and a thread in it.
# Run by scripts/run.sh once per state directory (it leaves <state_dir>/demo-seeded).
# Usage: scripts/demo-seed.sh TILAWA PORT WEEK   (TILAWA_STATE_DIR set)
set -euo pipefail
cd "$(dirname "$0")/.."
tilawa=$1; base="http://127.0.0.1:$2"; week=$3
audio=audio-fixtures/speech_mono_s16_48k.wav
for _ in $(seq 1 600); do curl -fs "$base/readyz" >/dev/null && break; sleep 0.1; done

token() { "$tilawa" token issue "$@" --ttl 1h; }
field() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }
# upload STUDENT WEEK: the new submission's id
upload() {
  curl -fsS -X POST -H "Authorization: Bearer $(token --student "$1")" -H 'Content-Type: audio/wav' -H 'Expect:' \
    --data-binary @"$audio" "$base/v1/students/$1/weeks/$2/submissions" | field '["id"]'
}
# until_true PATH EXPRESSION TOKEN: waits (at most two minutes) until the Python EXPRESSION
# of GET PATH's JSON (`d`) is true
until_true() {
  for _ in $(seq 1 1200); do
    [ "$(curl -fsS -H "Authorization: Bearer $3" "$base$1" | python3 -c "import json, sys; d = json.load(sys.stdin); print($2)")" = True ] && return 0
    sleep 0.1
  done
  echo "demo-seed: $1 never had $2" >&2; return 1
}

coach=$(token --coach C01)
# Zaynab (L2, coach C01) caught up on last week: answered, and she asks about the reply.
answered=$(upload S1003 $((week - 1)))
# Aisha (L1, C01) and Bilal (L2, C03) recorded this week: waiting in their coaches' queues.
upload S1001 "$week" >/dev/null
upload S1004 "$week" >/dev/null
until_true "/v1/submissions/$answered" "d['state'] == 'awaiting_feedback'" "$coach"
feedback=$(curl -fsS -X POST -H "Authorization: Bearer $coach" -H 'Content-Type: audio/wav' -H 'Expect:' \
  --data-binary @"$audio" "$base/v1/submissions/$answered/feedback" | field '["id"]')
curl -fsS -X PATCH -H "Authorization: Bearer $coach" -H 'Content-Type: application/json' \
  -d '{"notes": "Clear and steady. Hold the madd in the second ayah for its full length."}' "$base/v1/feedback/$feedback" >/dev/null
until_true "/v1/submissions/$answered" "len(d['feedback']) > 0" "$coach"
curl -fsS -X POST -H "Authorization: Bearer $(token --student S1003)" -H 'Content-Type: application/json' \
  -d '{"text": "Should the madd in the second ayah be four counts or six?"}' "$base/v1/feedback/$feedback/comments" >/dev/null
touch "$TILAWA_STATE_DIR/demo-seeded"
echo "demo-seed: the demo programme is seeded (recordings, a reply, a question)" >&2
