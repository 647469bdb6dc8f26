#!/usr/bin/env bash
# Issue 21's benchmark: the queue as a Scala service runs it, beside the plain worker and River, in
# one run on one fresh PostgreSQL (bench/queue/setup.sh), alternating:
#   - plain: weir.bench.queue.BurnDown plain (one handler, nothing subscribed);
#   - typed: BurnDown typed (two kinds decoded by the circe codec on JobHandlers, WorkerLog at
#     info, the events tallied and served as Prometheus text at /metrics);
#   - River: its own `river bench -n JOBS`.
# Both weir shapes burn down JOBS jobs inserted beforehand (kinds email and resize, JSON payloads),
# with -c 200, claim batches of 1 000 and a 5 min per-job timeout as `weir worker` has, on the JVM
# flags a service runs with (the full JIT, tracing off); JIT_FLAGS=-XX:TieredStopAtLevel=1 runs them
# as `weir worker --until-empty` does (C1 only: ADR 0006), where every allocation and call of the
# events' path costs more (measured: see bench/results/queue-typed-*.md).
# WARM=N (default 100000; 0 for none): each weir shape first burns down N jobs of a queue `warmup`
# in the same JVM, then the measured JOBS: a service's JVM is warm when a burst comes, while a JVM
# started for the measurement compiles its hot paths on the cores PostgreSQL needs (River, in Go,
# has nothing to warm).
#
# Usage: bench/queue/typed.sh [JOBS] [ROUNDS]   (default 100000 3); results in bench/results/queue-typed-*.md
#        MODES="plain kinds observed typed" bench/queue/typed.sh ...: those BurnDown modes alone, printed
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
jobs="${1:-100000}"
rounds="${2:-3}"
warm="${WARM:-100000}"
warm_flag=$([[ "$warm" -gt 0 ]] && echo --warm-up || true)
# shellcheck source=setup.sh
. "$here/setup.sh"
out="$repo/bench/results/queue-typed-$(date -u +%Y%m%dT%H%M%SZ).md"
cp=$(cd "$repo" && ./sbt "bench/compile" "export bench/Runtime/fullClasspath" 2>/dev/null |
  sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | grep -v '^\[' | grep '^/' | tail -1)
burn() { # mode db -> "completed jobs/s"
  lock "$JAVA_HOME/bin/java" -Dcats.effect.tracing.mode=none ${JIT_FLAGS:-} -cp "$cp" \
    weir.bench.queue.BurnDown "$1" "$(url "$2")" $warm_flag 2>>"$work/typed-stderr.log" | tail -1 | cut -d' ' -f2-
}
fill() { # db
  psql -d postgres -c "CREATE DATABASE $1"
  "$repo/weir" queue init --url "$(url "$1")" >/dev/null
  psql -d "$1" -c "INSERT INTO weir.jobs (queue, kind, payload)
    SELECT 'default', 'email', json_build_object('to', 'user' || i || '@example.org', 'template', 'welcome')::text
      FROM generate_series(1, $jobs / 2) i
    UNION ALL
    SELECT 'default', 'resize', json_build_object('image', i, 'width', 640)::text
      FROM generate_series(1, $jobs - $jobs / 2) i
    UNION ALL
    SELECT 'warmup', CASE WHEN i % 2 = 0 THEN 'email' ELSE 'resize' END,
      CASE WHEN i % 2 = 0 THEN json_build_object('to', 'user' || i || '@example.org', 'template', 'welcome')::text
        ELSE json_build_object('image', i, 'width', 640)::text END
      FROM generate_series(1, $warm) i; ANALYZE weir.jobs"
}
{
  echo "# weir's queue as a Scala service, beside the plain worker and River: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "- machine: $(nproc) cores, PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') fresh on the same machine; JDK $("$JAVA_HOME/bin/java" -version 2>&1 | head -1 | cut -d'"' -f2); River $river_version"
  echo "- weir $(git -C "$repo" rev-parse --short HEAD); $jobs jobs per run (half email, half resize), table analyzed; JVM flags: ${JIT_FLAGS:-the full JIT}; warm-up: $warm jobs first in the same JVM; WARM=$warm bench/queue/typed.sh $jobs $rounds"
  echo
  echo "| round | plain jobs/s | typed, logged, metrics jobs/s | River jobs/s | typed / plain | typed / River |"
  echo "|---|---|---|---|---|---|"
} > "$out"
if [[ -n "${MODES:-}" ]]; then # diagnosis: the given BurnDown modes only, no River, no table
  for round in $(seq 1 "$rounds"); do
    for mode in $MODES; do fill "${mode}_$round"; echo "$round $mode $(burn "$mode" "${mode}_$round")"; done
  done
  exit 0
fi
for round in $(seq 1 "$rounds"); do
  fill "plain_$round"; plain=$(burn plain "plain_$round")
  fill "typed_$round"; typed=$(burn typed "typed_$round")
  rdb="river_$round"
  psql -d postgres -c "CREATE DATABASE $rdb"
  "$river" migrate-up --database-url "postgres://postgres@127.0.0.1:$port/$rdb" >/dev/null
  lock "$river" bench --database-url "postgres://postgres@127.0.0.1:$port/$rdb" -n "$jobs" > "$work/river-typed-$round.txt" 2>&1
  rate=$(grep -o 'overall job/sec \[ *[0-9.]*' "$work/river-typed-$round.txt" | grep -o '[0-9.]*$')
  p=${plain#* }; t=${typed#* }
  python3 - "$round" "$p" "$t" "$rate" "${plain% *}" "${typed% *}" "$jobs" >> "$out" <<'PY'
import sys
r, p, t, river, pc, tc, jobs = sys.argv[1:]
p, t, river = float(p), float(t), float(river)
note = "" if int(pc) == int(jobs) == int(tc) else f" (completed {pc} / {tc} of {jobs})"
print(f"| {r} | {p:,.0f} | {t:,.0f} | {river:,.0f} | {t / p:.2f} | {t / river:.2f} |{note}")
PY
  tail -1 "$out"
done
echo "$out"
