#!/usr/bin/env bash
# Page times of `weir queue ui` over a big jobs table (issue 22's goal: p99 under 200 ms for every
# page at 10 M jobs). A fresh PostgreSQL (bench/queue/pg.sh), N jobs in one INSERT ... SELECT
# generate_series (mostly completed, some available, running, discarded and failed, over 4 queues
# and 3 kinds), VACUUM ANALYZE, then the ui on a free port and each page fetched TIMES times with
# curl, one after another: p50, p99 and max of curl's time_total per page; then the CPU that
# PostgreSQL spends while 0, 1 or 10 dashboards stay open.
#
#   [SPREAD=86400] [WATCH=60] bench/queue/ui.sh [N=100000] [TIMES=50]
#
# Not run with large N on a shared machine: 10 M jobs take minutes to insert and ~3 GB of disk.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; repo="$(cd "$here/../.." && pwd)"
n=${1:-100000}; times=${2:-50}
# The jobs' times are spread over the last SPREAD seconds (default a day: a table that a day's
# retention keeps; 10 M jobs a day is 116 jobs/s). A short SPREAD puts every job in the chart's window.
spread=${SPREAD:-86400}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"; }
port=$(free_port); ui_port=$(free_port); ui0_port=$(free_port)
dir=/tmp/weir-ui-bench
"$repo/bench/queue/pg.sh" start $dir $port
ui_pid=""; ui0_pid=""
cleanup() {
  for p in $ui_pid $ui0_pid; do kill "$p" 2>/dev/null || true; done
  "$repo/bench/queue/pg.sh" stop $dir
}
trap cleanup EXIT
psql() { "$pgbin/psql" -h 127.0.0.1 -p $port -U postgres -X -q -v ON_ERROR_STOP=1 "$@"; }
url="postgresql://postgres@127.0.0.1:$port/postgres"
"$repo/weir" queue init --url "$url" >/dev/null
psql -c "
INSERT INTO weir.jobs (queue, kind, payload, state, attempt, worker, lease_until, errors, last_error,
                       failed_at, run_at, created_at, attempted_at, finished_at)
SELECT 'q' || (i % 4), 'k' || (i % 3), '{\"n\":' || i || '}',
       s, CASE WHEN s = 'available' THEN 0 ELSE 1 END,
       CASE WHEN s IN ('running', 'completed') THEN 'bench-' || (i % 8) END,
       CASE WHEN s = 'running' THEN now() + interval '30 s' END,
       CASE WHEN s = 'discarded' OR i % 50 = 0 THEN 1 ELSE 0 END,
       CASE WHEN s = 'discarded' OR i % 50 = 0 THEN 'error ' || i END,
       CASE WHEN s = 'discarded' OR i % 50 = 0 THEN now() - (i % $spread) * interval '1 s' END,
       now() - (i % $spread) * interval '1 s', now() - (i % $spread) * interval '1 s',
       CASE WHEN s <> 'available' THEN now() - (i % $spread) * interval '1 s' END,
       CASE WHEN s IN ('completed', 'discarded') THEN now() - (i % $spread) * interval '1 s' END
  FROM generate_series(1, $n) AS i,
       LATERAL (SELECT CASE WHEN i % 1000 = 1 THEN 'running' WHEN i % 100 = 2 THEN 'discarded'
                            WHEN i % 10 = 3 THEN 'available' ELSE 'completed' END AS s) st;"
# The rows the 8 workers' heartbeats would keep (migration 0011): the jobs each holds, by queue.
psql -c "INSERT INTO weir.workers (id, queues, holding, claimed, completed)
SELECT worker, ARRAY['q0', 'q1', 'q2', 'q3'], jsonb_object_agg(queue, n), sum(n), 0
  FROM (SELECT worker, queue, count(*) AS n FROM weir.jobs WHERE state = 'running'
         GROUP BY worker, queue) h GROUP BY worker;"
psql -c "VACUUM ANALYZE weir.jobs;"
# Two uis on the same database: one as shipped (the overview's counts shared for 1 s, see
# --shared-counts) and one that counts at every request (--shared-counts 0): the latter's overview
# times are what one count costs.
"$repo/weir" queue ui --url "$url" --port $ui_port >/dev/null 2>&1 &
ui_pid=$!
"$repo/weir" queue ui --url "$url" --port $ui0_port --shared-counts 0 >/dev/null 2>&1 &
ui0_pid=$!
for p in $ui_port $ui0_port; do
  for _ in $(seq 1 120); do curl -fs -o /dev/null "http://127.0.0.1:$p/ui.css" && break; sleep 1; done
done
id=$(psql -At -c "SELECT max(id) FROM weir.jobs WHERE state = 'discarded'")
before=$(psql -At -c "SELECT max(id) / 2 FROM weir.jobs")
# The detail page's job with a full error history (25 entries of 1 000 characters, migration 0010).
psql -c "UPDATE weir.jobs SET error_history = (SELECT jsonb_agg(jsonb_build_object('attempt', a,
  'at', now() - (25 - a) * interval '1 minute', 'worker', 'bench-' || a, 'error', repeat('x', 1000)))
  FROM generate_series(1, 25) AS a) WHERE id = $id"
times_of() { # port page: TIMES fetches one after another, p50 and p99 of curl's time_total
  for _ in $(seq 1 "$times"); do
    curl -fs -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$1$2"
  done | sort -n | awk -v p="$3" '{ t[NR] = $1 * 1000 } END {
    printf "%-52s %8.1f %8.1f %8.1f\n", p, t[int((NR + 1) * 0.5)], t[(int(NR * 0.99) > 0) ? int(NR * 0.99) : 1], t[NR] }'
}
echo "weir queue ui: $n jobs, $times fetches per page (ms)"
printf '%-52s %8s %8s %8s\n' page p50 p99 max
for page in "/" "/?live=1" "/jobs" "/jobs?state=discarded" "/jobs?queue=q1&state=available" \
            "/jobs?kind=k2&before=$before" "/jobs/$id" "/workers" "/schedules"; do
  times_of $ui0_port "$page" "$page (--shared-counts 0)"
done
for page in "/" "/?live=1"; do times_of $ui_port "$page" "$page (shared counts, as shipped)"; done

# The load a dashboard left open puts on PostgreSQL: VIEWERS browsers each refreshing the
# overview's live part every 5 s (the page's script does that) for WATCH seconds; the server's CPU
# seconds over that time (utime + stime of the postmaster and its children, from /proc), per minute.
watch=${WATCH:-60}
pg_cpu() {
  local pm; pm=$(head -1 $dir/data/postmaster.pid)
  { echo $pm; ps -o pid= --ppid $pm; } | while read -r p; do
    awk '{ print $14 + $15 }' /proc/$p/stat 2>/dev/null || true
  done | awk -v hz=$(getconf CLK_TCK) '{ s += $1 } END { printf "%.2f", s / hz }'
}
echo
echo "PostgreSQL's CPU while dashboards stay open ($watch s, each viewer refreshing every 5 s)"
printf '%-40s %8s %14s\n' ui viewers "cpu s/minute"
for which in shared unshared; do
  port_of=$ui_port; [ $which = unshared ] && port_of=$ui0_port
  for viewers in 0 1 10; do
    c0=$(pg_cpu); pids=()
    for v in $(seq 1 $viewers); do
      ( sleep "0.$((RANDOM % 10))$((RANDOM % 10))"; end=$((SECONDS + watch))
        while [ $SECONDS -lt $end ]; do curl -fs -o /dev/null "http://127.0.0.1:$port_of/?live=1"; sleep 5; done ) &
      pids+=($!)
    done
    if [ $viewers = 0 ]; then sleep $watch; else wait "${pids[@]}"; fi
    c1=$(pg_cpu)
    label="$which"; [ $which = unshared ] && label="unshared (--shared-counts 0)"
    awk -v l="$label" -v v=$viewers -v a=$c0 -v b=$c1 -v w=$watch \
      'BEGIN { printf "%-40s %8d %14.2f\n", l, v, (b - a) * 60 / w }'
  done
done
