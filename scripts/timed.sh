#!/usr/bin/env bash
# Runs a command and says how long it took: `scripts/timed.sh NAME COMMAND…` prints
# "=== NAME: N s, exit E" after it (the Makefile's test stages, for CI's budget), and exits as
# the command did.
set -uo pipefail
name=$1
shift
started=$SECONDS
"$@"
code=$?
echo "=== $name: $((SECONDS - started)) s, exit $code"
exit "$code"
