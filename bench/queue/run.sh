#!/usr/bin/env bash
# weir's durable queue beside River, on one fresh PostgreSQL on this machine, in one run:
#   - processed rate: no-op jobs burned down from JOBS inserted jobs (weir worker --sleep 0
#     --until-empty; River's own `river bench -n JOBS`), ROUNDS times each, alternating;
#   - enqueue rate: weir enqueue --ids 0..JOBS in one COPY (one bulk call);
#   - idle pick-up latency: 200 jobs enqueued one at a time, 50 ms apart, into an idle queue
#     with one weir worker listening: claim time - enqueue transaction's start, from the rows;
#     then the same for River (bench/queue/river-pickup: one client, client.Insert 50 ms apart),
#     once with River's defaults (FetchCooldown 100ms, FetchPollInterval 1s) and once with
#     FetchCooldown 1ms: claim time (attempted_at) - created_at, from the rows;
#   - after each weir run: weir.jobs' size, its indexes' and its dead tuples.
# Every measurement runs under `flock /tmp/weir-bench.lock` (nothing else may benchmark on these
# cores at the same time). River (cmd/river, pinned below, and bench/queue/river-pickup against the
# same version) is built from the Go module proxy.
#
# Usage: bench/queue/run.sh [JOBS] [ROUNDS]    (default 1000000 2); results in bench/results/queue-*.md
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
jobs="${1:-1000000}"
rounds="${2:-2}"
# shellcheck source=setup.sh
. "$here/setup.sh"
out="$repo/bench/results/queue-$(date -u +%Y%m%dT%H%M%SZ).md"
# River's idle pick-up latency program, built once per source; its go.mod must pin the same River.
grep -q "^\s*github.com/riverqueue/river $river_version\$" "$here/river-pickup/go.mod" ||
  { echo "bench/queue/river-pickup/go.mod does not pin River $river_version" >&2; exit 1; }
pickup="$work/river-pickup-$(cat "$here"/river-pickup/{main.go,go.mod,go.sum} | sha256sum | cut -c1-12)"
if [[ ! -x "$pickup" ]]; then
  (
    cd "$here/river-pickup"
    export GOPROXY="$(go env GOPROXY | sed 's/,direct$//')"
    go build -o "$pickup" .
  )
fi

{
  echo "# weir queue vs River: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "- machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GB; PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on the same machine, default settings (fsync on), fresh cluster"
  echo "- JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); River $river_version ($(go version | awk '{print $3}'))"
  echo "- weir worker flags: --sleep 0 --until-empty -c $concurrency --batch $batch"
  echo "- command: bench/queue/run.sh $jobs $rounds"
  echo
  echo "| round | system | jobs | enqueue (jobs/s) | processed (jobs/s) | table MB | index MB | dead tuples | load avg before |"
  echo "|---|---|---|---|---|---|---|---|---|"
} > "$out"

for round in $(seq 1 "$rounds"); do
  db="weir_$round"
  psql -d postgres -c "CREATE DATABASE $db"
  "$repo/weir" queue init --url "$(url $db)" >/dev/null
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  enq=$(lock "$repo/weir" enqueue --ids "0..$jobs" --batch "$jobs" --url "$(url $db)" --no-live --format json)
  wrk=$(lock "$repo/weir" worker --sleep 0 --until-empty -c "$concurrency" --batch "$batch" --url "$(url $db)" --no-live --format json)
  sleep 1 # the statistics collector's counts of dead tuples lag a little
  st=$("$repo/weir" queue stats --url "$(url $db)" --format json)
  j() { python3 -c "import json,sys; print(json.loads(sys.argv[1])$2)" "$1"; }
  printf '| %s | weir | %s | %.0f | %.0f | %.1f | %.1f | %s | %s |\n' "$round" "$(j "$wrk" "['completed']")" \
    "$(j "$enq" "['jobsPerSecond']")" "$(j "$wrk" "['completedPerSecond']")" \
    "$(j "$st" "['tableBytes']/1e6")" "$(j "$st" "['indexBytes']/1e6")" "$(j "$st" "['deadTuples']")" "$load" >> "$out"
  echo "weir round $round: $(j "$wrk" "['completedPerSecond']") jobs/s" >&2

  rdb="river_$round"
  psql -d postgres -c "CREATE DATABASE $rdb"
  "$river" migrate-up --database-url "postgres://postgres@127.0.0.1:$port/$rdb" >/dev/null
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  lock "$river" bench --database-url "postgres://postgres@127.0.0.1:$port/$rdb" -n "$jobs" > "$work/river-$round.txt" 2>&1
  rate=$(grep -o 'overall job/sec \[ *[0-9.]*' "$work/river-$round.txt" | grep -o '[0-9.]*$')
  rsize=$(psql -d "$rdb" -Atc "SELECT pg_relation_size('river_job')/1e6, pg_indexes_size('river_job')/1e6, (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'river_job')")
  IFS='|' read -r rt ri rd <<< "$rsize"
  printf '| %s | River | %s | - | %.0f | %.1f | %.1f | %s | %s |\n' "$round" "$jobs" "$rate" "$rt" "$ri" "$rd" "$load" >> "$out"
  echo "River round $round: $rate jobs/s" >&2
done

# Idle pick-up latency.
db=weir_latency
psql -d postgres -c "CREATE DATABASE $db"
"$repo/weir" queue init --url "$(url $db)" >/dev/null
lock bash -c '
  "$1" worker --sleep 0 --queue latency --url "$2" --no-live > "$3/latency-worker.txt" 2>&1 &
  worker=$!
  until [[ $("$4/psql" -h 127.0.0.1 -p "$5" -U postgres -X -Atc "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE '"'"'weir worker (listen) %'"'"'" "$6") == 1 ]]; do sleep 0.2; done
  sleep 2
  for i in $(seq 1 200); do
    echo "BEGIN; INSERT INTO weir.jobs (queue, payload) VALUES ('"'"'latency'"'"', '"'"'$i'"'"'); SELECT pg_notify('"'"'weir_jobs'"'"', '"'"'latency'"'"'); COMMIT; SELECT pg_sleep(0.05);"
  done | "$4/psql" -h 127.0.0.1 -p "$5" -U postgres -X -q -o /dev/null "$6"
  sleep 1
  kill -TERM $worker; wait $worker || true # (a background job of a script ignores SIGINT)
' _ "$repo/weir" "$(url $db)" "$work" "$pgbin" "$port" "$db"
lat=$(psql -d "$db" -Atc "SELECT count(*), round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2), round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 2), round(max(ms)::numeric, 2) FROM (SELECT extract(epoch FROM attempted_at - created_at) * 1000 AS ms FROM weir.jobs WHERE queue = 'latency') x")
IFS='|' read -r ln l50 l99 lmax <<< "$lat"
{
  echo
  echo "Idle pick-up latency (weir, one worker listening, $ln jobs enqueued one at a time 50 ms apart; claim's start - enqueue transaction's start): p50 $l50 ms, p99 $l99 ms, max $lmax ms"
} >> "$out"

# River's idle pick-up latency, the same jobs and gaps through River's own client.Insert (and its
# own insert notification), on a fresh database each: River's defaults, then FetchCooldown 1ms
# (--fetch-cooldown 0 leaves River's default). created_at is River's client clock, taken inside
# the insert transaction (see river-pickup/main.go); attempted_at is the claim statement's now().
for cooldown in 0 1ms; do
  rdb="river_latency_$cooldown"
  psql -d postgres -c "CREATE DATABASE $rdb"
  "$river" migrate-up --database-url "postgres://postgres@127.0.0.1:$port/$rdb" >/dev/null
  lock "$pickup" --database-url "postgres://postgres@127.0.0.1:$port/$rdb" --fetch-cooldown "$cooldown" \
    --jobs 200 --gap 50ms --max-workers 10 > "$work/$rdb.txt"
  read -r _ rn r50 r99 rmax < <(grep '^server ' "$work/$rdb.txt") # (no such line: read fails, the script stops)
  note=""
  if [[ $cooldown == 0 ]]; then
    settings="defaults: FetchCooldown 100ms, FetchPollInterval 1s"
    note=" (River's client sends at most one insert notification per FetchCooldown per queue, so about every second Insert here sends none and waits for the next one's fetch; a job inserted last can wait for the 1 s poll)"
  else
    settings="FetchCooldown $cooldown, FetchPollInterval 1s"
  fi
  {
    echo
    echo "Idle pick-up latency (River $river_version, $settings, one client with MaxWorkers 10, $rn jobs inserted one at a time with client.Insert 50 ms apart; claim's start - created_at, River's client clock inside the insert transaction): p50 $r50 ms, p99 $r99 ms, max $rmax ms$note"
  } >> "$out"
  echo "River pick-up latency ($settings): p50 $r50 ms, p99 $r99 ms, max $rmax ms" >&2
done
cat "$out"
