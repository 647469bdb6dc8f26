#!/usr/bin/env bash
# The queue's burn-down as the backlog grows, beside River's, on one fresh PostgreSQL on this
# machine (default settings, fsync on), in one run. For each SIZE, in turn:
#   - weir, once per worker count W: a fresh database, SIZE no-op jobs enqueued in one COPY, then
#     `VACUUM ANALYZE weir.jobs` (what autovacuum does to a table after a bulk load: the state every
#     production queue is in), then W `weir worker --sleep 0 --until-empty -c 200 --batch 1000`
#     processes started together, until the queue is empty;
#   - River: `river bench -n SIZE` on a fresh database (River inserts its jobs and works them at
#     once, so its table is analyzed when autovacuum gets to it, if it does).
# Rates come from the rows, the same way for both: jobs / (last finish - first claim), on the
# server's clock; the rate over time is the finishes in each 10 s, and the worst 10 s and worst
# full minute are reported against the run's mean. After each weir run: weir.jobs' heap and index
# sizes and its dead tuples (statistics collector), and what autovacuum did meanwhile.
# Every measurement runs under `flock /tmp/weir-bench.lock` (nothing else may benchmark on these
# cores at the same time).
#
# Usage: bench/queue/scale.sh [SIZES] [WORKERS]
#   bench/queue/scale.sh                          # "100000 1000000 2000000" with "1 3" workers
#   bench/queue/scale.sh 10000000 1               # the long one (about 30 minutes)
#   RIVER=0 bench/queue/scale.sh 10000000 3       # weir alone (River's 10 M run takes 12 minutes)
#   BASELINE=/path/to/other/checkout bench/queue/scale.sh 1000000 1
#                                                 # also that checkout's weir (staged there once),
#                                                 # each size run with it just before this one's
# Results in bench/results/queue-scale-*.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
sizes="${1:-100000 1000000 2000000}"
workers="${2:-1 3}"
# shellcheck source=setup.sh
. "$here/setup.sh"
out="$repo/bench/results/queue-scale-$(date -u +%Y%m%dT%H%M%SZ).md"

# The rate of a finished run from its rows: db, table, claim column, finish column.
# Prints one table row: mean, worst 10 s / mean, worst minute / mean, the rate per 10 s (k/s).
timeline() {
  local db=$1 table=$2 started=$3 finished=$4
  psql -d "$db" -Atc "
    WITH t AS (SELECT min($started) AS t0, max($finished) AS t1, count(*) AS n FROM $table)
    SELECT t.n, extract(epoch FROM t.t1 - t.t0),
           coalesce(string_agg(s.sec || ':' || s.c, ' ' ORDER BY s.sec), '')
      FROM t LEFT JOIN (
        SELECT floor(extract(epoch FROM $finished - (SELECT t0 FROM t)))::int AS sec, count(*) AS c
          FROM $table GROUP BY 1) s ON true
     GROUP BY t.n, t.t1, t.t0" | python3 -c '
import sys
n, span, cells = sys.stdin.read().strip().split("|")
n, span = int(n), float(span)
per = {}
for cell in cells.split():
    s, c = cell.split(":"); per[int(s)] = int(c)
secs = int(span) + 1
counts = [per.get(s, 0) for s in range(secs)]
mean = n / span
def windows(w):  # full windows of w seconds, stepping by w (10 s) or by 1 s (a minute)
    step = w if w == 10 else 1
    return [sum(counts[i:i + w]) / w for i in range(0, secs - w + 1, step)]
ten = windows(10)
minute = windows(60)
worst10 = "%.2f" % (min(ten) / mean) if ten else "-"
worstmin = "%.2f" % (min(minute) / mean) if minute else "- (under a minute)"
series = " ".join("%.0f" % (r / 1000) for r in ten)
print("| %d | %.1f | %.0f | %s | %s | %s |" % (n, span, mean, worst10, worstmin, series or "-"))
'
}

{
  echo "# weir queue burn-down at scale vs River: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "- machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GB; PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on the same machine, default settings (fsync on), fresh cluster"
  echo "- JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); River $river_version ($(go version 2>/dev/null | awk '{print $3}'))"
  echo "- weir: jobs enqueued in one COPY, then VACUUM ANALYZE weir.jobs, then W x \`weir worker --sleep 0 --until-empty -c $concurrency --batch $batch\` at once"
  echo "- River: \`river bench -n SIZE\` (inserts, then works them with its defaults)"
  echo "- rate = jobs / (last finish - first claim), from the rows; per 10 s: finishes in each full 10 s, in thousands per second"
  echo "- command: $([[ "${RIVER:-1}" == 0 ]] && echo "RIVER=0 ")$([[ -n "${BASELINE:-}" ]] && echo "BASELINE=$BASELINE ")bench/queue/scale.sh \"$sizes\" \"$workers\""
  echo
  echo "| size | system | jobs | seconds | jobs/s | worst 10 s / mean | worst minute / mean | per 10 s (k/s) |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$out"
sizes_table=""

# Each build of weir measured: the baseline's (when BASELINE is set) first, then this checkout's.
builds=()
if [[ -n "${BASELINE:-}" ]]; then
  "$BASELINE/weir" --help >/dev/null 2>&1 # builds the baseline's staged CLI once
  builds+=("baseline $(git -C "$BASELINE" rev-parse --short HEAD)|$BASELINE/weir")
fi
builds+=("weir|$repo/weir")

for size in $sizes; do
  for build in "${builds[@]}"; do
    name=${build%%|*} bin=${build#*|}
    for w in $workers; do
      db="weir_${size}_$w"
      psql -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
      "$bin" queue init --url "$(url "$db")" >/dev/null
      lock "$bin" enqueue --ids "0..$size" --batch 1000000 --url "$(url "$db")" --no-live --format json >/dev/null
      psql -d "$db" -c "VACUUM ANALYZE weir.jobs"
      lock bash -c '
        for i in $(seq 1 "$1"); do
          "$2" worker --sleep 0 --until-empty -c "$3" --batch "$4" --url "$5" --no-live --format json > "$6/worker-$i.json" &
        done
        wait' _ "$w" "$bin" "$concurrency" "$batch" "$(url "$db")" "$work"
      sleep 1 # the statistics collector's counts of dead tuples lag a little
      row=$(timeline "$db" weir.jobs attempted_at finished_at)
      echo "| $size | $name x$w | ${row#| }" >> "$out"
      echo "$name, $size jobs, $w worker(s): $row" >&2
      sizes_table+="| $size | $name x$w | $(psql -d "$db" -Atc "
        SELECT round(pg_relation_size('weir.jobs') / 1e6, 1) || ' | ' || round(pg_indexes_size('weir.jobs') / 1e6, 1)
               || ' | ' || round(pg_relation_size('weir.jobs_claim') / 1e6, 1) || ' | ' || n_dead_tup
               || ' | ' || autovacuum_count || ' | ' || autoanalyze_count
          FROM pg_stat_user_tables WHERE relid = 'weir.jobs'::regclass") |"$'\n'
    done
  done

  [[ "${RIVER:-1}" == 0 ]] && continue
  rdb="river_$size"
  psql -d postgres -c "DROP DATABASE IF EXISTS $rdb" -c "CREATE DATABASE $rdb"
  "$river" migrate-up --database-url "postgres://postgres@127.0.0.1:$port/$rdb" >/dev/null
  lock "$river" bench --database-url "postgres://postgres@127.0.0.1:$port/$rdb" -n "$size" > "$work/river-$size.txt" 2>&1
  sleep 1
  row=$(timeline "$rdb" river_job attempted_at finalized_at)
  echo "| $size | River | ${row#| }" >> "$out"
  echo "River, $size jobs: $row ($(grep -o 'overall job/sec \[ *[0-9.]*' "$work/river-$size.txt" | grep -o '[0-9.]*$') by its own count)" >&2
  sizes_table+="| $size | River | $(psql -d "$rdb" -Atc "
    SELECT round(pg_relation_size('river_job') / 1e6, 1) || ' | ' || round(pg_indexes_size('river_job') / 1e6, 1)
           || ' | - | ' || n_dead_tup || ' | ' || autovacuum_count || ' | ' || autoanalyze_count
      FROM pg_stat_user_tables WHERE relname = 'river_job'") |"$'\n'
done

{
  echo
  echo "After each run (jobs table heap and all its indexes, weir's claim index alone, dead tuples, autovacuum and autoanalyze runs on it during the run):"
  echo
  echo "| size | system | table MB | indexes MB | claim index MB | dead tuples | autovacuums | autoanalyzes |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s' "$sizes_table"
} >> "$out"
cat "$out"
