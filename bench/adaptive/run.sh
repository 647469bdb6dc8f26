#!/usr/bin/env bash
# Adaptive concurrency against a server with a capacity: `weir load -c auto` beside fixed
# concurrencies, all against one `weir serve --capacity N` in the same run (only same-run ratios
# count: the machine drifts). Not a test.
#
# usage: bench/adaptive/run.sh [CAPACITY [DELAY [SECONDS]]]   (default 500, 50..150ms, 30)
#   FIXED="125 250 500 1000 2000" to choose the fixed concurrencies; OUT=dir for raw outputs.
# The goal (issue 11): auto reaches >= 90 % of the best fixed concurrency's throughput at a p99 no
# worse than 1.2x the p99 at that best fixed concurrency, with no tuning (auto's defaults).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
capacity="${1:-500}"; delay="${2:-50..150ms}"; secs="${3:-30}"
fixed="${FIXED:-125 250 500 1000 2000}"
port=18090
# shellcheck source=../lib.sh
. "$repo/bench/lib.sh"
JAVA_OPTS="-Xmx512m" weir_bench_start adaptive/out "$port" --delay "$delay" --capacity "$capacity"
echo "capacity $capacity, delay $delay, ${secs}s a run" | tee -a "$out/env.txt"
# Warm the server, not measured.
"$weir" load "http://127.0.0.1:$port/{id}" --duration 10s -c "$capacity" --no-live >/dev/null 2>&1 || true

printf '| concurrency | req/s | p50 ms | p99 ms | max ms | ended at | failures |\n|---|---:|---:|---:|---:|---:|---:|\n' | tee "$out/table.md"
run() { # C
  local raw="$out/c-$1.json"
  "$weir" load "http://127.0.0.1:$port/{id}" --duration "${secs}s" -c "$1" --no-live --format json >"$raw" 2>"$out/c-$1.err" || true
  python3 - "$raw" "$1" <<'PY' | tee -a "$out/table.md"
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print(f"| {sys.argv[2]} | {d['throughput_rps']:.0f} | {d['p50_ms']:.1f} | {d['p99_ms']:.1f} | {d['max_ms']:.1f} | {d['concurrency']} | {d['failures']} |")
PY
}
for c in $fixed; do run "$c"; done
run auto
python3 - "$out" $fixed <<'PY' | tee "$out/verdict.txt"
import json, sys
out, fixed = sys.argv[1], sys.argv[2:]
load = lambda c: json.loads(open(f"{out}/c-{c}.json").read().strip().splitlines()[-1])
runs = {c: load(c) for c in fixed}
top = max(r["throughput_rps"] for r in runs.values())
# The best fixed concurrency: the highest throughput; within 2 % of it, the lowest p99.
best = min((c for c, r in runs.items() if r["throughput_rps"] >= 0.98 * top), key=lambda c: runs[c]["p99_ms"])
auto, b = load("auto"), runs[best]
ratio, p99 = auto["throughput_rps"] / b["throughput_rps"], auto["p99_ms"] / b["p99_ms"]
print(f"best fixed: c = {best} ({b['throughput_rps']:.0f} req/s, p99 {b['p99_ms']:.1f} ms)")
print(f"auto: {auto['throughput_rps']:.0f} req/s = {ratio:.3f} of it (goal >= 0.9), p99 {auto['p99_ms']:.1f} ms = {p99:.2f}x (goal <= 1.2), ended at {auto['concurrency']}")
print("goal met" if ratio >= 0.9 and p99 <= 1.2 else "goal NOT met")
PY
echo "raw outputs: $out"
