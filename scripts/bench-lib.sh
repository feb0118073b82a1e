# Shared by the benchmark scripts (sourced, not run): statistics, the common input, and the
# rows of `make bench`'s summary table.

# A scratch folder $work, removed at exit together with the daemon $pid if one was started.
bench_scratch() {
  work=$(mktemp -d)
  # Reachable by the servers that drop to nobody under root (scripts/pg-server.sh, s3-server.sh).
  chmod 755 "$work"
  pid=""
  trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT
}

# Median and 99th percentile of numbers on stdin, one per line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
p99() { sort -g | awk '{a[NR]=$1} END {i=int(NR*0.99); if (i<1) i=1; if (i<NR*0.99) i++; print a[i]}'; }
# Seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }
# $1 / $2 with $3 decimals (default 2).
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { printf "%.*f", d, a / b }'; }

# Sets $input to 3 minutes of 48 kHz mono 16-bit speech (17.3 MB) in $work: the mono fixture
# repeated and cut to exactly 180 s. The input of every benchmark.
make_speech_3min() {
  local parts=()
  for _ in $(seq 1 20); do parts+=(audio-fixtures/speech_mono_s16_48k.wav); done
  input="$work/speech-3min.wav"
  sox "${parts[@]}" "$input" trim 0 180
}

# Adds a row to the summary table of `make bench` (when it runs the script):
# row WHAT RESULT COMMAND
row() {
  [ -n "${BENCH_ROWS:-}" ] || return 0
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$BENCH_ROWS"
}

# A daemon for the upload benchmarks, on a scratch state directory under $work with $1 bench
# students (B0001…, level L1, coach C01, fall-2026) and the sample programme. Sets $port and
# $pid (stopped at exit by bench_scratch) and exports what `upload` needs.
start_bench_daemon() {
  local students=$1
  { echo "student_id,name,level,coach_id,semester_id"
    for i in $(seq -f %04g 1 "$students"); do echo "B$i,Bench Student $i,L1,C01,fall-2026"; done; } > "$work/students.csv"
  port=$((20000 + RANDOM % 20000))
  export TILAWA_STATE_DIR="$work/var" TILAWA_HTTP_PORT=$port TILAWA_LOG_LEVEL=warning TILAWA_STORAGE_MIN_FREE_BYTES=0
  "$tilawa" roster import config/program.yaml "$work/students.csv" >/dev/null
  "$tilawa" serve > "$work/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.05; done
  export tilawa port work
}

# POSTs the file $2 as student $1's placement assessment (which uses no attempt); prints the
# seconds to the final answer and its HTTP status. A 503 (the daemon's cap on uploads in
# flight) is retried after a second or two, as a phone would after Retry-After, and counted
# as a line in $work/retries.
upload() {
  local token
  if [ -f "$work/tokens/$1" ]; then token=$(<"$work/tokens/$1"); else token=$("$tilawa" token issue --student "$1"); fi
  local t0; t0=$(date +%s.%N)
  while :; do
    local code
    code=$(curl -s -o /dev/null -w "%{http_code}" -X POST -H "Authorization: Bearer $token" \
      -H "Content-Type: application/octet-stream" -H 'Expect:' \
      --data-binary @"$2" "http://127.0.0.1:$port/v1/students/$1/weeks/assessment/submissions")
    [ "$code" = 503 ] || break
    echo "$1" >> "$work/retries"
    sleep "1.$((RANDOM % 10))"
  done
  echo "$(echo "$(date +%s.%N) - $t0" | bc -l) $code"
}
export -f upload

# Issues the bench students' tokens B0001…B<$1> into $work/tokens before the clock starts, as
# a phone holds its token before it uploads (each `token issue` is a process start).
issue_tokens() {
  mkdir -p "$work/tokens"
  seq -f 'B%04g' 1 "$1" | xargs -P "$(nproc)" -I{} sh -c "'$tilawa' token issue --student {} > '$work/tokens/{}'"
}

# CPU seconds (user + sys) the process $1 has used so far, from /proc/$1/stat.
process_cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$1/stat"; }

# CPU seconds (user + sys) of one `opusenc --bitrate 32` of the WAV $1.
opusenc_cpu() {
  # opusenc's own notes (a skipped LIST chunk, say) must not mix with the times.
  { TIMEFORMAT='%U %S'; time opusenc --quiet --bitrate 32 "$1" "$work/reference.opus" 2>/dev/null; } 2>&1 | awk '{print $1 + $2}'
}

# Waits until the daemon's encode queue is empty.
wait_for_encodes() {
  local query="SELECT COUNT(*) FROM job WHERE state IN ('queued','running')"
  while :; do
    if [ -n "${TILAWA_DATABASE_URL:-}" ]; then
      [ "$(psql -At "$TILAWA_DATABASE_URL" -c "$query")" = 0 ] && break
    else
      [ "$(sqlite3 "$work/var/tilawa.sqlite" "$query")" = 0 ] && break
    fi
    sleep 0.2
  done
}

# CPU ratios that the host's speed drift cannot skew. `tilawa` and `opusenc` hand libopus the
# same samples (bench-encode checks that the packets are identical), so libopus does the same
# work in both; the share of each side's CPU samples that falls in libopus then gives the ratio
# of their whole CPU per unit of that work, each side measured against itself in the same
# moments: ratio = share(opusenc) / share(ours). Needs `perf` able to sample here.
#
# perf_sampling: true when perf can sample CPU time on this machine.
perf_sampling() {
  command -v perf >/dev/null && perf record -q -e cpu-clock -o "$work/perf-probe.data" -- true >/dev/null 2>&1
}

# perf_attach OUT: samples every CPU into OUT until perf_detach (libopus_share picks a process
# out); sets $perf_pid. Not `perf record -p`: perf 6.1 spins on both cores polling the buffers
# of the daemon's threads once they have exited.
perf_attach() {
  perf record -q -a -F 999 -e cpu-clock -o "$1" >/dev/null 2>&1 &
  perf_pid=$!
  sleep 0.3
}
perf_detach() { kill -INT "$perf_pid" 2>/dev/null; wait "$perf_pid" 2>/dev/null || true; }

# perf_run OUT COMMAND...: runs COMMAND under perf, appending its samples' objects to OUT.
perf_run() {
  local out=$1; shift
  perf record -q -F 999 -e cpu-clock -o "$work/perf-run.data" -- "$@" >/dev/null 2>&1
  perf script -i "$work/perf-run.data" -F ip,dso 2>/dev/null >> "$out"
}

# libopus_share FILE [PID]: the fraction of the samples in FILE (perf script -F ip,dso lines, or
# a perf.data file, whose samples of process PID only count when PID is given) that ran in libopus.
libopus_share() {
  if [ "$(head -c 4 "$1" 2>/dev/null)" = PERF ]; then perf script -i "$1" -F ip,dso ${2:+--pid "$2"} 2>/dev/null; else cat "$1"; fi |
    awk '{total++} /\/libopus\.so/ {opus++} END {if (total) printf "%.4f\n", opus / total; else print 0}'
}

# libopus_ratio OURS THEIRS WHO [PID]: "ratio (libopus x of WHO's samples, y of opusenc's)", the
# CPU ratio of our side (samples in OURS, of process PID when given) to opusenc's (THEIRS).
libopus_ratio() {
  local ours theirs
  ours=$(libopus_share "$1" "${4:-}"); theirs=$(libopus_share "$2")
  [ "$ours" != 0 ] && [ "$theirs" != 0 ] || { echo "not measured (no libopus samples)"; return; }
  echo "$(ratio "$theirs" "$ours" 3) (libopus $ours of $3's samples, $theirs of opusenc's)"
}
