#!/usr/bin/env bash
# The date-sensitive test files (.ci/date-sensitive-files.txt) under a faked wall clock: Debian's
# libfaketime, preloaded into every process of the run (npm, vitest, its worker processes, PGlite,
# which runs inside them, and any child they start), at three instants:
#   month-start  the first second of a month that is not January (a day back is the month before);
#   year-start   the first second of a year (a day back is the year before);
#   year-end     the last second of a year (the year turns as the first files run).
# The instants are the next ones after today's real date, so the faked clock is never far from the real
# one; FAKED_DATES="YYYY-MM-DD hh:mm:ss;…" (UTC) runs other ones, e.g. to repeat a CI failure.
#
# The clock ticks from the faked start: FAKETIME is an offset in seconds from the real clock, the same
# for every process whenever it starts (a "start at" time would begin again in each worker process).
# Only the wall clock is faked (FAKETIME_DONT_FAKE_MONOTONIC): Node's timers and performance.now() run
# on the monotonic clock, and faking it would make a timer wait for the offset. The instant is when the
# first test files start, not when vitest does: vitest's start-up (migrating the template store, the
# global setups) takes seconds to a minute, so each pass starts the clock that much earlier, as long as
# the pass before took to reach its first file (10 s for the first pass; FAKED_CLOCK_LEAD_SECONDS).
#
# The embedded store only: PGlite's now() reads the process's faked clock, while a PostgreSQL server's
# own clock is the real one, and a service whose clock is a month ahead of its database is another
# situation (the write path's clock check, docs/decisions/evidence-times.md), not the one tested here.
#
#   bash .ci/faked-clock.sh [vitest args]   run the listed files at each instant, as .ci/run does
#   source .ci/faked-clock.sh               define faked_clock_passes (and the rest) for .ci/run
set -euo pipefail

FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1

# "label<TAB>YYYY-MM-DD hh:mm:ss" (UTC), one instant a line.
faked_clock_instants() {
  if [ -n "${FAKED_DATES:-}" ]; then
    local i=0 at
    IFS=';' read -ra dates <<<"$FAKED_DATES"
    for at in "${dates[@]}"; do printf 'date-%s\t%s\n' "$((++i))" "$at"; done
    return
  fi
  local year month next_month
  year=$(date -u +%Y)
  month=$(date -u +%m)
  # The next month's first second, or February's when the next month is January (year-start has it).
  next_month=$(date -u -d "${year}-${month}-01 +1 month" +%Y-%m)
  [ "${next_month#*-}" = 01 ] && next_month=$(date -u -d "${next_month}-01 +1 month" +%Y-%m)
  printf 'month-start\t%s-01 00:00:00\n' "$next_month"
  printf 'year-start\t%s-01-01 00:00:00\n' "$((10#$year + 1))"
  printf 'year-end\t%s-12-31 23:59:59\n' "$year"
}

# Exports what makes every process started after it see the wall clock at `at` (UTC) minus `lead`
# seconds, ticking.
faked_clock_env() {
  local at=$1 lead=${2:-0} offset
  [ -r "$FAKETIME_LIB" ] || {
    echo "$FAKETIME_LIB is missing: apt-get install -y faketime libfaketime" >&2
    return 1
  }
  offset=$(($(date -u -d "$at" +%s) - lead - $(date -u +%s)))
  export LD_PRELOAD="$FAKETIME_LIB${LD_PRELOAD:+:$LD_PRELOAD}"
  export FAKETIME="$(printf '%+d' "$offset")"
  export FAKETIME_DONT_FAKE_MONOTONIC=1
  # No browser file is listed, and Chromium under libfaketime took a minute more to start: the run's
  # shared browser is not started (test/helpers/chromium-global.ts).
  export SHARED_CHROMIUM=0
  # Proof that the preload took, in the Node that runs the tests: its clock must read `at` - `lead`.
  node -e '
    const want = Date.parse(process.argv[1].replace(" ", "T") + "Z") - 1000 * Number(process.argv[2]);
    const drift = Date.now() - want;
    if (drift < -1000 || drift > 30000) {
      console.error(`faked clock reads ${new Date().toISOString()}, not ${new Date(want).toISOString()}`);
      process.exit(1);
    }
    console.log(`faked clock: ${new Date().toISOString()} (FAKETIME=${process.env.FAKETIME} s from the real one)`);
  ' "$at" "$lead"
}

# How long the pass of `report` (vitest's JSON report) took from its clock's start to its first file,
# in whole seconds, given the instant `at` and the `lead` it ran with.
faked_clock_startup() {
  node -e '
    const report = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const first = Math.min(...report.testResults.map((f) => f.startTime));
    const started = Date.parse(process.argv[2].replace(" ", "T") + "Z") - 1000 * Number(process.argv[3]);
    if (!Number.isFinite(first)) process.exit(1);
    console.log(Math.max(1, Math.ceil((first - started) / 1000)));
  ' "$1" "$2" "$3"
}

# The listed files, comments and blank lines left out.
faked_clock_files() {
  grep -v -e '^#' -e '^[[:space:]]*$' "$(dirname "${BASH_SOURCE[0]}")/date-sensitive-files.txt"
}

# Runs `runner label files…` once per instant (it must write test-results/vitest-<label>.json), each
# in a subshell with the faked clock; returns 1 when a pass failed or a listed file does not exist.
faked_clock_passes() {
  local runner=$1 status=0 lead=${FAKED_CLOCK_LEAD_SECONDS:-10} label at file startup
  local -a files
  mapfile -t files < <(faked_clock_files)
  for file in "${files[@]}"; do
    [ -f "$file" ] || { echo ".ci/date-sensitive-files.txt lists $file, which does not exist" >&2; status=1; }
  done
  while IFS=$'\t' read -r label at; do
    printf -- '-- %s: %s UTC when the first files start (the clock starts %s s earlier)\n' "$label" "$at" "$lead"
    (unset DATABASE_URL && faked_clock_env "$at" "$lead" && "$runner" "faked-$label" "${files[@]}") || status=1
    if startup=$(faked_clock_startup "test-results/vitest-faked-$label.json" "$at" "$lead" 2>/dev/null); then
      lead=$startup
    fi
  done < <(faked_clock_instants)
  return "$status"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  cd "$(dirname "$0")/.."
  mkdir -p test-results
  extra=("$@")
  local_run() {
    local label=$1
    shift
    npx vitest run "$@" "${extra[@]}" --reporter=default --reporter=json \
      --outputFile.json="test-results/vitest-${label}.json"
  }
  faked_clock_passes local_run
fi
