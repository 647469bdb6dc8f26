#!/usr/bin/env bash
# A URL file against the same target as a template: `weir load --urls FILE` beside
# `weir load URL-TEMPLATE`, the same N requests at zero delay, alternated, in one run (only
# same-run ratios count: the machine drifts). The goal (issue 11): the file within 10 % of the
# template's rate. Not a test.
#
# usage: bench/http/urlfile.sh [N [C [ROUNDS]]]   (default 1000000, 100, 3)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
n="${1:-1000000}"; c="${2:-100}"; rounds="${3:-3}"
port=18110
# shellcheck source=../lib.sh
. "$repo/bench/lib.sh"
weir_bench_start http/out/urlfile "$port" --delay 0
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.writelines(f'http://127.0.0.1:$port/{i}\n' for i in range(int(sys.argv[2])))" "$out/urls.txt" "$n"
"$weir" load "http://127.0.0.1:$port/{id}" -n 200000 -c "$c" --no-live >/dev/null 2>&1 || true  # warm the server
printf '| round | source | req/s | client CPU s |\n|---|---|---:|---:|\n' | tee "$out/table.md"
measure() { # ROUND NAME ARGS...
  local round="$1" name="$2"; shift 2
  /usr/bin/time -f "%U %S" -o "$out/$name-$round.time" \
    "$weir" load "$@" -c "$c" --no-live --format json >"$out/$name-$round.json" 2>"$out/$name-$round.err" || true
  python3 - "$out/$name-$round.json" "$out/$name-$round.time" "$round" "$name" <<'PY' | tee -a "$out/table.md"
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
u, s = open(sys.argv[2]).read().split()[-2:]
print(f"| {sys.argv[3]} | {sys.argv[4]} | {d['throughput_rps']:.0f} | {float(u) + float(s):.1f} |")
PY
}
for r in $(seq 1 "$rounds"); do
  measure "$r" template "http://127.0.0.1:$port/{id}" -n "$n"
  measure "$r" urls --urls "$out/urls.txt"
done
python3 - "$out" "$rounds" <<'PY'
import json, sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
rate = lambda name: statistics.median(
    json.loads(open(f"{out}/{name}-{r}.json").read().strip().splitlines()[-1])["throughput_rps"]
    for r in range(1, rounds + 1))
t, u = rate("template"), rate("urls")
print(f"median: template {t:.0f} req/s, URL file {u:.0f} req/s: the file at {u / t:.3f}x the template")
PY
