#!/usr/bin/env bash
# What periodic jobs cost an idle worker: one `weir worker` (on a queue with no jobs) on a fresh
# PostgreSQL, its CPU over SECONDS (utime + stime from /proc/PID/stat, over the wall time between
# the two reads), first with no schedule (the baseline), then with N schedules `every 1m` (periods
# aligned to the minute: all N due at once, every minute). Also counts what the scheduler did in the
# window: jobs enqueued, periods recorded, and jobs beyond one per period (must be 0). Goal: under
# 5 % of a core with 1000 schedules. Measured under `flock /tmp/weir-bench.lock`.
#
# Usage: bench/queue/schedules.sh [N] [SECONDS]   (default 1000 60); result in bench/results/queue-schedules-*.md
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
n="${1:-1000}"
seconds="${2:-60}"
port="${WEIR_BENCH_PORT:-$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")}"
work="${WEIR_BENCH_DIR:-/tmp/weir-schedules-bench}"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
psql() { "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -q -v ON_ERROR_STOP=1 "$@"; }
url() { echo "postgresql://postgres@127.0.0.1:$port/$1"; }
mkdir -p "$work" "$repo/bench/results"
# shellcheck source=../../project/pick-java.sh
. "$repo/project/pick-java.sh"
"$repo/weir" --help >/dev/null 2>&1 # builds the staged CLI once, outside the measurement
"$here/pg.sh" start "$work/pg" "$port"
worker=""
cleanup() {
  [[ -n "$worker" ]] && kill -TERM "$worker" 2>/dev/null && wait "$worker" 2>/dev/null || true
  "$here/pg.sh" stop "$work/pg"
}
trap cleanup EXIT
out="$repo/bench/results/queue-schedules-$(date -u +%Y%m%dT%H%M%SZ).md"
tck=$(getconf CLK_TCK)

# CPU of one idle worker on database $1 over $seconds: "percent-of-a-core jobs periods doubled".
measure() {
  local db=$1
  "$repo/weir" worker --sleep 0 --queue idle --url "$(url "$db")" --no-live > "$work/worker-$db.txt" 2>&1 &
  worker=$!
  # The JVM's pid, as its listening connection names it ("weir worker (listen) PID").
  local pid=""
  until [[ -n "$pid" ]]; do
    sleep 0.2
    pid=$(psql -d "$db" -Atc "SELECT substring(application_name FROM '[0-9]+\$') FROM pg_stat_activity WHERE application_name LIKE 'weir worker (listen) %' LIMIT 1")
  done
  sleep 20 # start-up and the JIT's first compilations are not the idle cost
  local t0 c0 t1 c1
  read -r t0 c0 < <(cpu "$pid")
  local jobs0 periods0
  jobs0=$(psql -d "$db" -Atc "SELECT count(*) FROM weir.jobs")
  periods0=$(psql -d "$db" -Atc "SELECT count(*) FROM weir.schedule_periods")
  sleep "$seconds"
  read -r t1 c1 < <(cpu "$pid")
  local jobs1 periods1 doubled
  jobs1=$(psql -d "$db" -Atc "SELECT count(*) FROM weir.jobs")
  periods1=$(psql -d "$db" -Atc "SELECT count(*) FROM weir.schedule_periods")
  # Jobs beyond one per recorded period (0 when every job has its period and no period two jobs).
  doubled=$(psql -d "$db" -Atc "SELECT (SELECT count(*) FROM weir.jobs WHERE queue = 'sched') - (SELECT count(*) FROM weir.schedule_periods)")
  kill -TERM "$worker"; wait "$worker" || true
  worker=""
  python3 -c "import sys; t0,c0,t1,c1,tck=map(float,sys.argv[1:]); print(f'{100*(c1-c0)/tck/(t1-t0):.2f}')" "$t0" "$c0" "$t1" "$c1" "$tck" |
    tr -d '\n'
  echo " $((jobs1 - jobs0)) $((periods1 - periods0)) $doubled"
}
# "wall-seconds cpu-ticks" of process $1 (utime + stime: fields 14 and 15 of /proc/PID/stat).
cpu() {
  local now stat
  now=$(date +%s.%N)
  stat=$(sed 's/.*) //' "/proc/$1/stat")
  echo "$now $(awk '{print $12 + $13}' <<< "$stat")"
}

psql -d postgres -c "CREATE DATABASE base" -c "CREATE DATABASE sched"
"$repo/weir" queue init --url "$(url base)" >/dev/null
"$repo/weir" queue init --url "$(url sched)" >/dev/null
# N schedules every minute into queue 'sched' (the table weir queue schedule writes, in one statement).
psql -d sched -c "INSERT INTO weir.schedules (name, queue, payload, every_ms)
                  SELECT 's' || i, 'sched', 's' || i, 60000 FROM generate_series(1, $n) i"
load=$(cut -d' ' -f1-3 /proc/loadavg)
exec 9> /tmp/weir-bench.lock
flock 9 # nothing else benchmarks on these cores meanwhile
measure base > "$work/base.txt"
measure sched > "$work/sched.txt"
flock -u 9
read -r base_cpu _ _ _ < "$work/base.txt"
read -r sched_cpu jobs periods doubled < "$work/sched.txt"
{
  echo "# Periodic jobs: an idle worker's CPU with $n schedules: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "- machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on the same machine, fresh cluster; load avg before: $load"
  echo "- JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); weir $(git -C "$repo" rev-parse --short HEAD)"
  echo "- one \`weir worker --sleep 0 --queue idle\` (no jobs), after 20 s of start-up; CPU = (utime + stime) / wall time over ${seconds} s, one run each"
  echo "- command: bench/queue/schedules.sh $n $seconds"
  echo
  echo "| schedules | CPU (% of one core) | jobs enqueued in the window | periods recorded | jobs beyond one per period |"
  echo "|---|---|---|---|---|"
  echo "| 0 | $base_cpu | - | - | - |"
  echo "| $n every 1m | $sched_cpu | $jobs | $periods | $doubled |"
} > "$out"
cat "$out"
