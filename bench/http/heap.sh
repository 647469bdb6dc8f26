#!/usr/bin/env bash
# weir load's heap: the start script's choice (256 MB + 1 MB per 100 of -c) against the JVM's
# default (a quarter of the machine), the same load at c = C against one server, alternated, in
# one run: rate and peak RSS. Not a test.
#
# usage: bench/http/heap.sh [N [C [ROUNDS]]]   (default 500000, 5000, 2)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
n="${1:-500000}"; c="${2:-5000}"; rounds="${3:-2}"
port=18120
# shellcheck source=../lib.sh
. "$repo/bench/lib.sh"
weir_bench_start http/out/heap "$port" --delay 0..200ms
"$weir" load "http://127.0.0.1:$port/{id}" -n 100000 -c "$c" --no-live >/dev/null 2>&1 || true  # warm the server
printf '| round | heap | req/s | peak RSS MB |\n|---|---|---:|---:|\n' | tee "$out/table.md"
measure() { # ROUND NAME JAVA_OPTS
  local round="$1" name="$2"
  JAVA_OPTS="$3" /usr/bin/time -f "%M" -o "$out/$name-$round.rss" \
    "$weir" load "http://127.0.0.1:$port/{id}" -n "$n" -c "$c" --no-live --format json \
    >"$out/$name-$round.json" 2>"$out/$name-$round.err" || true
  python3 - "$out/$name-$round.json" "$out/$name-$round.rss" "$round" "$name" <<'PY' | tee -a "$out/table.md"
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
rss = int(open(sys.argv[2]).read().split()[-1]) / 1024
print(f"| {sys.argv[3]} | {sys.argv[4]} | {d['throughput_rps']:.0f} | {rss:.0f} |")
PY
}
for r in $(seq 1 "$rounds"); do
  measure "$r" "start script's (-Xmx$((256 + c / 100))m)" ""
  measure "$r" "JVM default (MaxRAMPercentage=25)" "-XX:MaxRAMPercentage=25"
done
