#!/usr/bin/env bash
# Page times of `weir queue ui` over a big jobs table (issue 22's goal: p99 under 200 ms for every
# page at 10 M jobs). A fresh PostgreSQL (bench/queue/pg.sh), N jobs in one INSERT ... SELECT
# generate_series (mostly completed, some available, running, discarded and failed, over 4 queues
# and 3 kinds), VACUUM ANALYZE, then the ui on a free port and each page fetched TIMES times with
# curl, one after another: p50 and p99 of curl's time_total per page.
#
#   [SPREAD=86400] bench/queue/ui.sh [N=100000] [TIMES=50]
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
port=$(free_port); ui_port=$(free_port)
dir=/tmp/weir-ui-bench
"$repo/bench/queue/pg.sh" start $dir $port
ui_pid=""
cleanup() { [ -n "$ui_pid" ] && kill "$ui_pid" 2>/dev/null || true; "$repo/bench/queue/pg.sh" stop $dir; }
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
psql -c "VACUUM ANALYZE weir.jobs;"
"$repo/weir" queue ui --url "$url" --port $ui_port >/dev/null 2>&1 &
ui_pid=$!
for _ in $(seq 1 120); do curl -fs -o /dev/null "http://127.0.0.1:$ui_port/ui.css" && break; sleep 1; done
id=$(psql -At -c "SELECT max(id) FROM weir.jobs WHERE state = 'discarded'")
before=$(psql -At -c "SELECT max(id) / 2 FROM weir.jobs")
echo "weir queue ui: $n jobs, $times fetches per page (ms)"
printf '%-44s %8s %8s\n' page p50 p99
for page in "/" "/?live=1" "/jobs" "/jobs?state=discarded" "/jobs?queue=q1&state=available" \
            "/jobs?kind=k2&before=$before" "/jobs/$id" "/workers" "/schedules"; do
  for _ in $(seq 1 "$times"); do
    curl -fs -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$ui_port$page"
  done | sort -n | awk -v p="$page" '{ t[NR] = $1 * 1000 } END {
    printf "%-44s %8.1f %8.1f\n", p, t[int((NR + 1) * 0.5)], t[(int(NR * 0.99) > 0) ? int(NR * 0.99) : 1] }'
done
