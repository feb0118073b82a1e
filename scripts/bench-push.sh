#!/usr/bin/env bash
# Benchmark: pushes one node sends. 10,000 students with an iPhone each (rows written straight
# into the device table), an announcement to all of them, and the APNs stand-in of the tests
# (Tests/push/apns_server.py: HTTP/2 over TLS, every provider token verified) on loopback.
# Reports the seconds from the announcement to the last 200 (target: under a minute for a
# week's unlock to 10,000 students), pushes per second, and the daemon's CPU per push. The
# stand-in's own CPU is apart; on a 2-core box it competes with the daemon, so the figure is a
# floor of what the daemon does against Apple.
#
#   scripts/bench-push.sh path/to/tilawa [students]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=$(realpath "$1")
students=${2:-10000}
python=.venv-test/bin/python
bench_scratch
server_pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT

{ echo "student_id,name,level,coach_id,semester_id"
  for i in $(seq -f %05g 1 "$students"); do echo "P$i,Push Student $i,L1,C01,fall-2026"; done; } > "$work/students.csv"
export TILAWA_STATE_DIR="$work/var" TILAWA_LOG_LEVEL=warning TILAWA_STORAGE_MIN_FREE_BYTES=0 TILAWA_NOTIFICATIONS_QUIET_HOURS=none
"$tilawa" roster import config/program.yaml "$work/students.csv" >/dev/null

"$python" - "$work" <<'PY'
import sys
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import serialization
key = ec.generate_private_key(ec.SECP256R1())
open(sys.argv[1] + "/AuthKey.p8", "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
open(sys.argv[1] + "/apns-public.pem", "wb").write(key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
PY
"$python" Tests/push/apns_server.py --dir "$work/apns" --public-key "$work/apns-public.pem" --key-id ABC123DEFG --team-id TEAM456789 \
  --topic org.example.tilawa > "$work/apns.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 200); do [ -f "$work/apns/port" ] && break; sleep 0.05; done
apns_port=$(<"$work/apns/port")

port=$((20000 + RANDOM % 20000))
export TILAWA_HTTP_PORT=$port TILAWA_PUSH_APNS_KEY_FILE="$work/AuthKey.p8" TILAWA_PUSH_APNS_KEY_ID=ABC123DEFG \
  TILAWA_PUSH_APNS_TEAM_ID=TEAM456789 TILAWA_PUSH_APNS_TOPIC=org.example.tilawa \
  TILAWA_PUSH_APNS_ENDPOINT="https://127.0.0.1:$apns_port" TILAWA_PUSH_APNS_CA_FILE="$work/apns/ca.pem"
"$tilawa" serve > "$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 400); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.05; done
ops=$("$tilawa" token issue --ops bench)

# The devices, written while the daemon runs: the roster's own events are fanned out already
# (to no device), so only the announcement pushes.
sleep 2
"$python" - "$work/var/tilawa.sqlite" "$students" <<'PY'
import datetime, sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=60)
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.000")
with db:
    db.executemany("INSERT INTO device (ownerKind, ownerId, deviceId, platform, token, environment, locale, appVersion, registeredAt, updatedAt)"
                   " VALUES ('student', ?, 'phone', 'ios', ?, 'production', 'ar', '3.1.0', ?, ?)",
                   [("P%05d" % i, "%064x" % i, now, now) for i in range(1, int(sys.argv[2]) + 1)])
PY

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ticks=$(getconf CLK_TCK)
daemon0=$(cpu "$pid"); server0=$(cpu "$server_pid")
t0=$(now)
curl -fs -o /dev/null -X POST "http://127.0.0.1:$port/v1/announcements" -H "Authorization: Bearer $ops" -H "Content-Type: application/json" \
  -d '{"title": "Bench", "body": "Week 13 is open.", "audience": {"all": true}}'
# The announcement's pushes only (the programme's own notices may push too).
count() { grep '"status": 200' "$work/apns/requests.jsonl" 2>/dev/null | grep -c '"Bench"' || true; }
deadline=$(( $(date +%s) + 900 ))
while [ "$(count)" -lt "$students" ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
t1=$(now)
sent=$(count)
daemon1=$(cpu "$pid"); server1=$(cpu "$server_pid")
seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
rate=$(awk -v n="$sent" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
daemon_ms=$(awk -v d="$((daemon1 - daemon0))" -v t="$ticks" -v n="$sent" 'BEGIN { printf "%.2f", d * 1000 / t / n }')
server_ms=$(awk -v d="$((server1 - server0))" -v t="$ticks" -v n="$sent" 'BEGIN { printf "%.2f", d * 1000 / t / n }')
echo "pushes sent:              $sent of $students"
echo "announcement to last 200: ${seconds} s (target < 60 s)"
echo "pushes per second:        $rate"
echo "daemon CPU per push:      ${daemon_ms} ms   (the APNs stand-in's: ${server_ms} ms)"
row "pushes to $students iPhones (APNs stand-in)" "${seconds} s, ${rate}/s, ${daemon_ms} ms CPU each" "make bench-push"
[ "$sent" -ge "$students" ]
