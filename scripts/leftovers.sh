#!/usr/bin/env bash
# Lists the processes a test run left behind, and ends them.
#
# Usage: scripts/leftovers.sh MARK [GRACE]
#
# Every process the run started carries SUITE_RUN_MARK=MARK in its environment (.ci/run
# exports it; children inherit it, also through setpriv, runuser and pg_ctl): test daemons,
# `tilawa` children, Swift's S3 servers and memcached, PostgreSQL, Chromium. The servers'
# own watchers stop theirs once the test process is gone, so a process may take a few seconds
# to go: this waits up to GRACE seconds (30) for them. Whatever is still there is named on
# stderr with its command line, killed, and the exit status is 1; 0 when none is left. Run it
# without the mark in its own environment (`env -u SUITE_RUN_MARK`), from the marked shell.
set -uo pipefail
mark=${1:?usage: $0 MARK [GRACE]}
grace=${2:-30}

marked() {
  local dir pid
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    [ "$pid" = "$$" ] && continue
    [ "$pid" = "$PPID" ] && continue
    # Readable as root (CI) or for one's own processes; a process gone meanwhile reads empty.
    if { tr '\0' '\n' < "$dir/environ"; } 2>/dev/null | grep -qx "SUITE_RUN_MARK=$mark"; then
      echo "$pid"
    fi
  done
}

deadline=$((SECONDS + grace))
left=$(marked)
while [ -n "$left" ] && [ "$SECONDS" -lt "$deadline" ]; do
  sleep 1
  left=$(marked)
done
[ -z "$left" ] && exit 0

echo "leftovers: the test run left these processes running:" >&2
for pid in $left; do
  command=$({ tr '\0' ' ' < "/proc/$pid/cmdline"; } 2>/dev/null | cut -c1-200)
  user=$(stat -c %U "/proc/$pid" 2>/dev/null)
  echo "  pid $pid ($user): ${command:-?}" >&2
done
for pid in $left; do kill -KILL "$pid" 2>/dev/null; done
exit 1
