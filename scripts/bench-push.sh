#!/usr/bin/env bash
# Benchmark: pushes one node sends. 10,000 students with an iPhone each (rows written straight
# into the device table), an announcement to all of them, and the APNs stand-in of the tests
# (Tests/push/apns_server.py: HTTP/2 over TLS, every provider token verified) on loopback.
# Reports the seconds from the announcement to the last 200 (target: under a minute for a
# week's unlock to 10,000 students), pushes per second, and the daemon's CPU per push. The
# stand-in's own CPU is apart; on a 2-core box it competes with the daemon, so the figure is a
# floor of what the daemon does against Apple.
#
# Then what explains the run: from the stand-in's log, the requests, the tokens answered 200
# and those answered 200 more than once (a push the phone would get twice), the HTTP/2
# connections and their requests, the time each request spent in the stand-in, and the
# longest pauses between requests; from the daemon's log, the sends that got no answer or
# were refused for now, by kind (`push not sent, tried again`, warning).
#
#   scripts/bench-push.sh path/to/tilawa [students]
#
# PUSH_BENCH_MAX_REQUESTS=1000 has the stand-in close each connection after 1,000 requests as
# hypercorn does by default — ungracefully, dropping the answers in flight (Tests/push/stand_in.py,
# serve_tls) — to reproduce the stalls and duplicates of runs made with it; 0 (the default): never.
# PUSH_BENCH_KEEP=1 keeps the scratch folder (logs and database) and prints where it is.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
tilawa=$(realpath "$1")
students=${2:-10000}
max_requests=${PUSH_BENCH_MAX_REQUESTS:-0}
python=.venv-test/bin/python
bench_scratch
server_pid=""
pid=""
# Stops a process, and kills it if it is still there after 5 s: hypercorn's graceful shutdown
# can wait for ever on a connection its recycling left half-closed (seen with
# PUSH_BENCH_MAX_REQUESTS), and a bare `wait` then held the script until its caller's timeout,
# leaving the stand-in behind.
stop() {
  [ -n "$1" ] || return 0
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
}
trap 'stop "$pid"; stop "$server_pid"; wait 2>/dev/null || true
      if [ -n "${PUSH_BENCH_KEEP:-}" ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi' EXIT

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
  --topic org.example.tilawa --max-requests-per-connection "$max_requests" > "$work/apns.log" 2>&1 &
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
# The devices the announcement reached (the programme's own notices may push too): distinct
# tokens answered 200, so a push sent twice is not counted as another device reached.
count() { { grep '"status": 200' "$work/apns/requests.jsonl" 2>/dev/null || true; } | { grep '"Bench"' || true; } | cut -d'"' -f4 | sort -u | wc -l; }
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
[ "$max_requests" -gt 0 ] && echo "stand-in:                 closes each connection after $max_requests requests (PUSH_BENCH_MAX_REQUESTS)"

# What explains the run.
"$python" - "$work/apns" "$work/serve.log" <<'PY'
import collections, json, os, re, sys
folder, serve_log = sys.argv[1], sys.argv[2]
def lines(name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return []
    with open(path) as source:
        return [json.loads(line) for line in source if line.strip()]
requests = [r for r in lines("requests.jsonl") if "Bench" in json.dumps(r.get("payload") or {})]
answered = {a["n"]: a["answered"] for a in lines("answers.jsonl")}
statuses = collections.Counter(r["status"] for r in requests)
ok = collections.Counter(r["token"] for r in requests if r["status"] == 200)
twice = {token: count for token, count in ok.items() if count > 1}
print(f"requests of the announcement: {len(requests)}  ({', '.join(f'{s}×{n}' for s, n in sorted(statuses.items()))})")
print(f"tokens answered 200:      {len(ok)}; answered 200 more than once: {len(twice)} tokens, {sum(twice.values()) - len(twice)} extra")
by_connection = collections.defaultdict(list)
for r in sorted(requests, key=lambda r: r.get("n", 0)):
    by_connection[r.get("connection")].append(r)
sizes = sorted(len(v) for v in by_connection.values())
if sizes:
    print(f"HTTP/2 connections:       {len(sizes)} (requests each: min {sizes[0]}, median {sizes[len(sizes) // 2]}, max {sizes[-1]})")
if twice:
    # A connection closed with answers in flight (hypercorn's recycling) loses the answers of its last requests.
    near_end = 0
    for token in twice:
        first = min((r for r in requests if r["token"] == token), key=lambda r: r.get("n", 0))
        group = by_connection[first.get("connection")]
        position = next(i for i, r in enumerate(group) if r.get("n") == first.get("n"))
        near_end += len(group) - position <= 16
    print(f"  first try among the last 16 requests of its connection: {near_end} of {len(twice)}")
spent = sorted((answered[r["n"]] - r["received"]) * 1000 for r in requests if r.get("n") in answered and "received" in r)
if spent:
    pick = lambda q: spent[min(len(spent) - 1, int(q * len(spent)))]
    print(f"in the stand-in, ms:      p50 {pick(0.5):.1f}, p90 {pick(0.9):.1f}, p99 {pick(0.99):.1f}, max {spent[-1]:.1f} ({len(requests) - len(spent)} with no answer handed over)")
arrivals = sorted((r["received"], r.get("connection")) for r in requests if "received" in r)
if len(arrivals) > 1:
    gaps = sorted(((b[0] - a[0], a[0] - arrivals[0][0], a[1] != b[1]) for a, b in zip(arrivals, arrivals[1:])), reverse=True)[:5]
    print("longest pauses between requests: " + "; ".join(f"{gap:.2f} s at +{at:.1f} s{' (new connection after)' if changed else ''}" for gap, at, changed in gaps))
kinds, refused = collections.Counter(), 0
with open(serve_log, errors="replace") as source:
    for line in source:
        if 'msg="push not sent, tried again"' in line:
            kinds[(re.search(r" kind=(\S+)", line) or [None, "?"])[1]] += 1
        elif 'msg="push refused, not sent"' in line:
            refused += 1
print(f"daemon, sent again:       {sum(kinds.values())} ({', '.join(f'{k}×{n}' for k, n in kinds.most_common()) or 'none'}); refused: {refused}")
PY

row "pushes to $students iPhones (APNs stand-in)" "${seconds} s, ${rate}/s, ${daemon_ms} ms CPU each" "make bench-push"
[ "$sent" -ge "$students" ]
