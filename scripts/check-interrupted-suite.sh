#!/usr/bin/env bash
# An interrupted test run leaves nothing behind: runs one browser test file (Chromium and a store; on
# PostgreSQL when DATABASE_URL is set) with vitest, sends SIGINT to the vitest process once Chromium
# runs (and, on PostgreSQL, the file's database exists), then checks that vitest exited with 130 and
# that no process, temporary file or database of that run is left. .ci/run calls it after the suites;
# it takes about half a minute. test/helpers/lazy-resources-global.ts does the undoing.
#
# Usage: [INTERRUPT_GROUP=1] [INTERRUPT_SIGNAL=TERM] scripts/check-interrupted-suite.sh [test file]   (default test/sdk/banner.test.ts)
set -euo pipefail
cd "$(dirname "$0")/.."

file=${1:-test/sdk/banner.test.ts}
# INT (Ctrl-C) by default; TERM (a CI job cancelled) must undo the run the same way, exiting 143.
signal=${INTERRUPT_SIGNAL:-INT}
case $signal in INT) expected=130 ;; TERM) expected=143 ;; *) echo "INTERRUPT_SIGNAL must be INT or TERM" >&2 && exit 2 ;; esac
# What finds this run's processes, whatever their parent now: every process vitest starts inherits
# the variable (the suite marks its processes the same way, with a mark of its own).
mark_name=CONSENT_SERVICE_INTERRUPT_CHECK
mark="${mark_name}=$$-${RANDOM}${RANDOM}"
work=$(mktemp -d "${TMPDIR:-/tmp}/cs-intr-XXXXXX")
# The run's TMPDIR: empty when the run has removed what it made.
run_tmp="$work/t"
log="$work/vitest.log"
mkdir "$run_tmp"

fail() {
  echo "check-interrupted-suite: $*" >&2
  echo "--- vitest output:" >&2
  tail -n 40 "$log" >&2 || true
  exit 1
}

# Live processes carrying the mark (zombies have exited: only their parent's wait removes them).
marked_processes() {
  local dir stat rest
  for dir in /proc/[0-9]*; do
    stat=$(cat "$dir/stat" 2>/dev/null) || continue
    rest=${stat##*) }
    case ${rest%% *} in Z | X) continue ;; esac
    if tr '\0' '\n' 2>/dev/null <"$dir/environ" | grep -qxF "$mark"; then
      printf '%s %s\n' "${dir#/proc/}" "$(tr '\0' ' ' 2>/dev/null <"$dir/cmdline" | cut -c1-160)"
    fi
  done
}

psql_admin() { psql "$admin_url" -X -q -t -A -v ON_ERROR_STOP=1 -c "$1"; }
db=""
if [ -n "${DATABASE_URL:-}" ]; then
  # A database of this check's own, so its run's template and per-file databases (named after it)
  # are told apart from any other run's on the same server.
  admin_url=$DATABASE_URL
  db="consent_interrupt_$$_${RANDOM}"
  psql_admin "create database ${db}"
  run_url=$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; console.log(u.href)' "$DATABASE_URL" "$db")
  run_databases() { psql_admin "select datname from pg_database where datname like '${db}\\_%'"; }
fi
cleanup() {
  local pids
  pids=$(marked_processes | cut -d' ' -f1)
  [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
  if [ -n "$db" ]; then
    for name in $(run_databases 2>/dev/null); do psql_admin "drop database if exists \"${name}\" with (force)" || true; done
    psql_admin "drop database if exists ${db} with (force)" || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

start=$SECONDS
# In a session of its own, so that INTERRUPT_GROUP=1 can send the signal to the whole process group,
# as Ctrl-C in a terminal does (every worker and child gets it too); by default only vitest gets it,
# as from `kill -INT`, and the run must stop the rest itself.
setsid env "$mark" TMPDIR="$run_tmp" ${db:+DATABASE_URL="$run_url"} \
  node node_modules/vitest/vitest.mjs run "$file" --reporter=default >"$log" 2>&1 &
vitest=$!

# Interrupted mid-test: once Chromium runs, and on PostgreSQL once the file's database exists.
for ((i = 0; ; i++)); do
  kill -0 "$vitest" 2>/dev/null || fail "vitest ended before Chromium started"
  # Captured first: under pipefail, grep -q stopping the listing early would read as no match.
  running=$(marked_processes)
  if grep -q chromium <<<"$running"; then
    if [ -z "$db" ] || [ -n "$(run_databases)" ]; then break; fi
  fi
  ((i < 900)) || fail "no Chromium (or no test database) after 90 s"
  sleep 0.1
done
echo "interrupting vitest (pid $vitest) $((SECONDS - start)) s in, with: $(marked_processes | grep -c .) processes of the run${db:+, databases $(run_databases | tr '\n' ' ')}"
if [ "${INTERRUPT_GROUP:-0}" = 1 ]; then kill "-$signal" -- "-$vitest"; else kill "-$signal" "$vitest"; fi

status=0
for ((i = 0; i < 600; i++)); do
  kill -0 "$vitest" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$vitest" 2>/dev/null && fail "vitest still runs 60 s after SIG$signal"
wait "$vitest" || status=$?
[ "$status" = "$expected" ] || fail "vitest exited with $status after SIG$signal, not $expected"

left=$(marked_processes)
[ -z "$left" ] || fail "processes left running after the interrupt:
$left"
files=$(find "$run_tmp" -mindepth 1 -maxdepth 2 | head -n 20)
[ -z "$files" ] || fail "temporary files left in the run's TMPDIR after the interrupt:
$files"
if [ -n "$db" ]; then
  databases=$(run_databases)
  [ -z "$databases" ] || fail "databases left after the interrupt: $databases"
fi
grep -q "SIG$signal: stopping the run's processes" "$log" || fail "the run did not say it was undoing itself"
echo "interrupted run (SIG$signal): exit $expected, no process, temporary file${db:+ or database} left ($((SECONDS - start)) s)"
