#!/usr/bin/env bash
# A throw-away PostgreSQL 15 (Debian's postgresql-15) for the tests: its own cluster in a
# scratch directory, on a free loopback port, run as an unprivileged user (`nobody` when
# started by root: PostgreSQL refuses to run as root), trust authentication on loopback only,
# fsync off (what is tested is Tilawa's behaviour when *it* is killed, not the disk's).
#
#   scripts/pg-server.sh start DIR   prints url=postgres://tilawa@127.0.0.1:PORT/tilawa
#   scripts/pg-server.sh stop DIR    stops it (idempotent); the caller removes DIR
#   scripts/pg-server.sh restart DIR `pg_ctl restart -m fast`: every session is ended (clients see
#                                    57P01 "terminating connection due to administrator command"),
#                                    then the server starts again on the same port with the same
#                                    options and data, as the same user; prints url= again
#
# With TILAWA_TEST_SERVER_OWNER=PID in the environment of `start` (the tests give their own
# process's), a watcher stops the server once that process is gone, however it ended: a test
# that failed before its stop, a crash, CI's timeout. No server outlives the run that started it.
set -euo pipefail
command=${1:-}; dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|restart DIR" >&2; exit 64; }
bin=/usr/lib/postgresql/15/bin
as=()
if [ "$(id -u)" = 0 ]; then as=(runuser -u nobody --); fi

# A process's start time (field 22 of /proc/PID/stat): a PID given to another process later is not the owner.
start_time() { awk '{sub(/^.*\) /, ""); print $20}' "/proc/$1/stat" 2>/dev/null || true; }

case "$command" in
watch)
  # `watch DIR OWNER STARTED`: started by `start`, detached; stops DIR's server once OWNER is gone.
  owner=${3:-}; started=${4:-}
  while [ -n "$started" ] && [ "$(start_time "$owner")" = "$started" ]; do sleep 2; done
  exec "$0" stop "$dir"
  ;;
start)
  [ -x "$bin/initdb" ] || { echo "pg-server: PostgreSQL 15 is not installed (make deps-postgres)" >&2; exit 69; }
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then
    chown nobody:nogroup "$dir"
    "${as[@]}" test -w "$dir" || { echo "pg-server: user nobody cannot reach $dir (a folder above it is private)" >&2; exit 77; }
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "${as[@]}" "$bin/initdb" -D "$dir/data" -U tilawa --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { echo "pg-server: initdb failed; see $dir/initdb.log" >&2; tail -5 "$dir/initdb.log" >&2; exit 70; }
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=1000" start >/dev/null \
    || { echo "pg-server: the server did not start; see $dir/server.log" >&2; tail -5 "$dir/server.log" >&2; exit 70; }
  "${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U tilawa tilawa
  echo "$port" >"$dir/port"
  owner=${TILAWA_TEST_SERVER_OWNER:-}
  if [ -n "$owner" ] && started=$(start_time "$owner") && [ -n "$started" ]; then
    setsid "$(readlink -f "$0")" watch "$dir" "$owner" "$started" </dev/null >/dev/null 2>&1 &
  fi
  echo "url=postgres://tilawa@127.0.0.1:$port/tilawa"
  ;;
stop)
  [ -d "$dir/data" ] || exit 0
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
  ;;
restart)
  # pg_ctl takes the options of the last start from data/postmaster.opts (port, socket folder,
  # listen address, settings); only the log file is given again, so that the server's output
  # never goes to this script's stdout (a caller reading it to its end would wait for the server).
  [ -f "$dir/data/postmaster.pid" ] && [ -f "$dir/port" ] || { echo "pg-server: no server runs in $dir" >&2; exit 69; }
  dir=$(cd "$dir" && pwd)
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null \
    || { echo "pg-server: the server did not restart; see $dir/server.log" >&2; tail -5 "$dir/server.log" >&2; exit 70; }
  echo "url=postgres://tilawa@127.0.0.1:$(cat "$dir/port")/tilawa"
  ;;
*)
  echo "usage: $0 start|stop|restart DIR" >&2; exit 64
  ;;
esac
