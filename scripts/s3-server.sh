#!/usr/bin/env bash
# A real S3-compatible server for the tests, checking SigV4 signatures as AWS does: OpenStack
# Swift's proxy with its s3api and tempauth middlewares, one account, one container and one
# object server and a memcached, all from Debian's packages (`make deps-s3`), run as the current
# user (`nobody` under root) from a directory of the caller's on free loopback ports, without
# systemd, stdin or a TTY.
#
# Usage: scripts/s3-server.sh start DIR   makes DIR (give a fresh temporary one: its filesystem
#                                         must take user extended attributes), writes the configs,
#                                         rings, data and logs (DIR/log/*.log) there, starts the
#                                         servers, waits for them to answer (30 s at most) and
#                                         prints on stdout, also kept in DIR/s3.env:
#                                           endpoint=http://127.0.0.1:PORT   (path-style)
#                                           access_key=test:tester           (tempauth's account:user)
#                                           secret_key=testing
#                                           region=us-east-1                 (s3api's `location`)
#        scripts/s3-server.sh stop DIR    stops every process that `start DIR` started (TERM, then
#                                         KILL after 10 s); does nothing when none runs. DIR stays,
#                                         with the objects, the configuration and the ports.
#        scripts/s3-server.sh resume DIR  starts the servers of a stopped DIR again, on the same ports
#                                         with the same data and keys (an outage and its end, for a
#                                         test: clients configured with the endpoint stay valid);
#                                         waits for them as `start` does (30 s at most), stops
#                                         whatever it started if they do not all answer, and prints
#                                         DIR/s3.env again.
#
# With TILAWA_TEST_SERVER_OWNER=PID in the environment of `start` (the tests give their own
# process's), a watcher stops the servers once that process is gone, however it ended: a test
# that failed before its stop, a crash, CI's timeout. No server outlives the run that started it.
# The watcher stops whatever DIR/pids names then, so it covers the servers of a `resume` too.
set -euo pipefail

# The Python of Debian's swift packages: another python3 earlier in PATH has no swift module.
PYTHON=/usr/bin/python3
ACCESS_KEY=test:tester
SECRET_KEY=testing
REGION=us-east-1

die() { echo "s3-server: $*" >&2; exit 1; }

# A process's start time (field 22 of /proc/PID/stat), recorded with its PID so that `stop`
# never signals an unrelated process that was given the same PID later.
start_time() { awk '{sub(/^.*\) /, ""); print $20}' "/proc/$1/stat" 2>/dev/null || true; }

# Whether the process "PID STARTTIME" recorded in DIR/pids still runs.
alive() { [ -n "$2" ] && [ "$(start_time "$1")" = "$2" ]; }

stop() {
  local dir=$1 pids=$1/pids name pid started waited=0 left
  [ -f "$pids" ] || return 0
  while read -r name pid started; do
    alive "$pid" "$started" && kill -TERM "$pid" 2>/dev/null || true
  done < "$pids"
  while :; do
    left=""
    while read -r name pid started; do
      alive "$pid" "$started" && left="$left $name"
    done < "$pids"
    [ -z "$left" ] && break
    if [ "$waited" -ge 100 ]; then
      echo "s3-server: killing$left (still running 10 s after TERM)" >&2
      while read -r name pid started; do
        alive "$pid" "$started" && kill -KILL "$pid" 2>/dev/null || true
      done < "$pids"
      sleep 0.2
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$pids"
}

# `watch OWNER STARTED DIR`: waits while the process OWNER (with start time STARTED) runs, then
# stops DIR's servers. Started by `start`, detached, its output nowhere.
watch() {
  while alive "$1" "$2"; do sleep 2; done
  stop "$3"
}

# Starts the watcher of `start DIR` when TILAWA_TEST_SERVER_OWNER names a running process.
watch_owner() {
  local owner=${TILAWA_TEST_SERVER_OWNER:-} started
  [ -n "$owner" ] || return 0
  started=$(start_time "$owner")
  [ -n "$started" ] || return 0
  setsid "$(readlink -f "$0")" watch "$owner" "$started" "$1" </dev/null >/dev/null 2>&1 &
}

# Starts "$@" in the background with its output in DIR/log/NAME.log and records it in DIR/pids.
launch() {
  local name=$1; shift
  "$@" </dev/null >>"$dir/log/$name.log" 2>&1 &
  local pid=$!
  echo "$name $pid $(start_time "$pid")" >> "$dir/pids"
}

# Whether an HTTP server on 127.0.0.1:$1 answers GET /healthcheck with 200 (bash's /dev/tcp).
healthy() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1" &&
    printf 'GET /healthcheck HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 &&
    read -r -t 2 line <&3 &&
    [[ $line == "HTTP/1."[01]" 200"* ]]
  ) 2>/dev/null
}

# Whether something takes TCP connections on 127.0.0.1:$1.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Starts memcached and the four Swift servers of DIR ($dir) in the background. Called by `start`
# and `resume`, it reads their variables (dynamic scope): $user, $as and the five *_port.
launch_servers() {
  local memcached_user=() kind
  [ "$(id -u)" = 0 ] && memcached_user=(-u "$user")
  launch memcached memcached -l 127.0.0.1 -p "$memcached_port" -U 0 -m 64 "${memcached_user[@]}"
  for kind in account container object proxy; do
    launch "$kind-server" "${as[@]}" "$PYTHON" "$dir/run/server.py" "$dir" "$dir/$kind-server.conf" "$kind-server"
  done
}

# Returns once all four servers answer /healthcheck and memcached takes connections (30 s at
# most); dies (and the caller's EXIT trap stops what was started) when one exits or time is up.
wait_until_answering() {
  local deadline=$((SECONDS + 30)) pending name pid started kind port
  while :; do
    while read -r name pid started; do
      alive "$pid" "$started" || die "$name exited during start-up: see $dir/log/$name.log"
    done < "$dir/pids"
    pending=""
    for kind in account container object proxy; do
      case $kind in
        account) port=$account_port ;;
        container) port=$container_port ;;
        object) port=$object_port ;;
        proxy) port=$proxy_port ;;
      esac
      healthy "$port" || pending="$pending $kind-server"
    done
    listening "$memcached_port" || pending="$pending memcached"
    [ -z "$pending" ] && break
    [ "$SECONDS" -lt "$deadline" ] || die "no answer from$pending within 30 s: see the logs in $dir/log/"
    sleep 0.2
  done
}

# Refuses a DIR whose recorded servers still run; forgets a record of servers all gone.
refuse_running() {
  local name pid started
  [ -f "$dir/pids" ] || return 0
  while read -r name pid started; do
    alive "$pid" "$started" && die "$dir already has a running server: scripts/s3-server.sh stop $dir first"
  done < "$dir/pids"
  rm -f "$dir/pids"
}

# `resume DIR`: the servers of a DIR that `start` made and `stop` stopped, started again with
# the configuration, rings, data and ports they had.
resume() {
  [ -d "$1" ] || die "no directory $1"
  dir=$(cd "$1" && pwd -P)
  [ -f "$dir/ports" ] && [ -f "$dir/s3.env" ] && [ -f "$dir/proxy-server.conf" ] \
    || die "$dir holds no server made by \`scripts/s3-server.sh start\`"
  refuse_running
  local memcached_port account_port container_port object_port proxy_port user as=()
  read -r memcached_port account_port container_port object_port proxy_port < "$dir/ports"
  user=$(id -un)
  if [ "$(id -u)" = 0 ]; then
    user=nobody
    as=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
  fi
  # Leaving before all answered stops whatever was started (a port taken meanwhile, say).
  trap '[ "$ready" = 1 ] || stop "$dir"' EXIT
  trap 'exit 130' INT TERM HUP
  launch_servers
  wait_until_answering
  ready=1
  trap - INT TERM HUP
  cat "$dir/s3.env"
}

# The directory `start` works in, global for its EXIT trap; $ready once all answered.
dir=""
ready=0

start() {
  for tool in memcached "$PYTHON"; do
    command -v "$tool" >/dev/null || die "$tool is missing: run \`make deps-s3\`"
  done
  "$PYTHON" -c 'import swift.common.middleware.s3api' 2>/dev/null || die "python3-swift is missing: run \`make deps-s3\`"
  mkdir -p "$1"
  dir=$(cd "$1" && pwd -P)
  refuse_running
  mkdir -p "$dir/srv/d1" "$dir/log" "$dir/run"
  # The object server keeps each object's metadata in user extended attributes.
  "$PYTHON" - "$dir/srv/d1/.xattr-check" <<'PY' 2>/dev/null || die "the filesystem of $dir does not take user extended attributes, which Swift's object server stores its metadata in: give a directory on ext4, XFS or btrfs (or tmpfs on Linux 6.6 and later)"
import os, sys
path = sys.argv[1]
open(path, "w").close()
try:
    os.setxattr(path, "user.swift.check", b"1")
    assert os.getxattr(path, "user.swift.check") == b"1"
finally:
    os.unlink(path)
PY

  # From here on, leaving before all answered stops whatever was started.
  trap '[ "$ready" = 1 ] || stop "$dir"' EXIT
  trap 'exit 130' INT TERM HUP

  # Five distinct free loopback ports, held together while they are chosen.
  local ports memcached_port account_port container_port object_port proxy_port
  ports=$("$PYTHON" - <<'PY'
import socket
socks = []
for _ in range(5):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
)
  read -r memcached_port account_port container_port object_port proxy_port <<< "$ports"
  # Kept for `resume`, which starts the same servers on the same ports.
  echo "$ports" > "$dir/ports"
  local user prefix suffix
  user=$(id -un)
  # As root (a CI box), the servers run as nobody, as scripts/pg-server.sh runs PostgreSQL:
  # Swift's through setpriv (which execs: the PID recorded is the server's), memcached with -u.
  local as=()
  if [ "$(id -u)" = 0 ]; then
    user=nobody
    as=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
    chown -R nobody:nogroup "$dir"
    runuser -u nobody -- test -w "$dir/srv/d1" || die "user nobody cannot reach $dir (a folder above it is private)"
  fi
  prefix=$("$PYTHON" -c 'import secrets; print(secrets.token_hex(16))')
  suffix=$("$PYTHON" -c 'import secrets; print(secrets.token_hex(16))')

  cat > "$dir/swift.conf" <<EOF
[swift-hash]
swift_hash_path_prefix = $prefix
swift_hash_path_suffix = $suffix

[storage-policy:0]
name = Policy-0
default = yes
EOF

  # Shared by every server. Swift always adds a syslog handler: a log_address that is no socket
  # keeps it off the machine's /dev/log (it falls back to UDP on localhost:514, where nothing
  # listens by default); -v writes every line to DIR/log/*.log instead. workers = 0: one process
  # each, no forked workers. user: the current one (nobody under root), so that no `swift` user
# is needed.
  common() {
    cat <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $1
workers = 0
user = $user
swift_dir = $dir
devices = $dir/srv
mount_check = false
disable_fallocate = true
log_name = $2
log_address = $dir/run/no-syslog
log_level = INFO
EOF
  }
  local kind port
  for kind in account container object; do
    case $kind in
      account) port=$account_port ;;
      container) port=$container_port ;;
      object) port=$object_port ;;
    esac
    { common "$port" "$kind-server"; cat <<EOF

[pipeline:main]
pipeline = healthcheck $kind-server

[app:$kind-server]
use = egg:swift#$kind

[filter:healthcheck]
use = egg:swift#healthcheck
EOF
    } > "$dir/$kind-server.conf"
  done

  # The pipeline of Swift 2.30's proxy-server.conf sample without container_sync, with s3api
  # just before tempauth as its s3api section says. Path-style addressing on any host name;
  # virtual-hosted style for BUCKET.localhost (storage_domain).
  { common "$proxy_port" proxy-server; cat <<EOF

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats bulk tempurl ratelimit s3api tempauth copy container-quotas account-quotas slo dlo versioned_writes symlink proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = $REGION
storage_domain = localhost

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = $SECRET_KEY .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$memcached_port
EOF
    # The middlewares used as they come: each section names its egg (dashes as underscores).
    for filter in catch_errors gatekeeper healthcheck proxy-logging listing_formats bulk tempurl ratelimit copy container-quotas account-quotas slo dlo versioned_writes symlink; do
      printf '\n[filter:%s]\nuse = egg:swift#%s\n' "$filter" "${filter//-/_}"
    done
  } > "$dir/proxy-server.conf"

  # Swift's servers read swift.conf from /etc/swift whatever their swift_dir: this launcher
  # points them at DIR/swift.conf first (hash path prefix and suffix, storage policy, limits).
  cat > "$dir/run/server.py" <<'PY'
import sys
from swift.common import utils
utils.set_swift_dir(sys.argv[1])
from swift.common import constraints, storage_policy
constraints.reload_constraints()
storage_policy.reload_storage_policies()
from swift.common.wsgi import run_wsgi
conf, section = sys.argv[2], sys.argv[3]
extra = {}
if section == "object-server":
    from swift.obj import server
    extra["global_conf_callback"] = server.global_conf_callback
sys.exit(run_wsgi(conf, section, verbose=True, **extra))
PY

  # One replica, one device, 2^6 partitions per ring: what `swift-ring-builder X.builder create
  # 6 1 1; add r1z1-127.0.0.1:PORT/d1 1; rebalance` does, through its library in one process
  # (three times faster than nine runs of the command: seconds of start-up on a busy machine).
  "$PYTHON" - "$dir" "$account_port" "$container_port" "$object_port" <<'PY' > "$dir/log/rings.log" 2>&1 || die "the rings could not be built: see $dir/log/rings.log"
import sys
from swift.common.ring import RingBuilder
folder, ports = sys.argv[1], dict(zip(("account", "container", "object"), map(int, sys.argv[2:5])))
for kind, port in ports.items():
    builder = RingBuilder(6, 1, 1)
    builder.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1", "port": port,
                     "replication_ip": "127.0.0.1", "replication_port": port,
                     "device": "d1", "weight": 1, "meta": ""})
    builder.rebalance()
    builder.save(f"{folder}/{kind}.builder")
    builder.get_ring().save(f"{folder}/{kind}.ring.gz")
    print(f"{kind}.ring.gz: 127.0.0.1:{port}/d1, {builder.parts} partitions")
PY

  launch_servers
  wait_until_answering
  ready=1
  trap - INT TERM HUP
  watch_owner "$dir"

  printf 'endpoint=http://127.0.0.1:%s\naccess_key=%s\nsecret_key=%s\nregion=%s\n' \
    "$proxy_port" "$ACCESS_KEY" "$SECRET_KEY" "$REGION" | tee "$dir/s3.env"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || die "usage: $0 start DIR"; start "$2" ;;
  stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; [ -d "$2" ] && stop "$(cd "$2" && pwd -P)"; exit 0 ;;
  resume) [ $# -eq 2 ] || die "usage: $0 resume DIR"; resume "$2" ;;
  watch) [ $# -eq 4 ] || die "usage: $0 watch OWNER STARTED DIR"; watch "$2" "$3" "$4"; exit 0 ;;
  *) die "usage: $0 start DIR | $0 stop DIR | $0 resume DIR" ;;
esac
