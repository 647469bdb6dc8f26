#!/usr/bin/env bash
# Two builds of weir side by side in one JMH run: for each cell, the baseline's benchmark then this
# checkout's, one after the other (so that drift hits both alike), then a table of the scores, their
# 99.9 % error as a share of the score, and the ratio this/baseline.
#
# Usage: BASELINE=/path/to/other/checkout bench/jmh/ab.sh [CLASS] [PARAMS...]
#   CLASS   the benchmark class (default EngineOverheadBench)
#   PARAMS  JMH parameter lists, e.g. subject=strategy,engine task=noop,cpu concurrency=8,64,1024
#           (default: those three)
#   env: FORKS (2), WARMUPS (4), ITERATIONS (6), each iteration and warm-up 1 s; OUT=dir.
# Builds each checkout's bench module once (./sbt bench/Jmh/compile), outside the measurements.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
: "${BASELINE:?set BASELINE to the checkout to compare with}"
class="${1:-EngineOverheadBench}"; shift || true
params=("$@"); [ ${#params[@]} -eq 0 ] && params=(subject=strategy,engine task=noop,cpu concurrency=8,64,1024)
forks="${FORKS:-2}" warmups="${WARMUPS:-4}" iterations="${ITERATIONS:-6}"
out="${OUT:-$repo/bench/results/jmh-ab-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
# shellcheck source=../../project/pick-java.sh
. "$repo/project/pick-java.sh"

classpath() { # checkout -> the bench module's JMH class path
  (cd "$1" && ./sbt "bench/Jmh/compile" "export bench/Jmh/fullClasspath" 2>/dev/null) |
    sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | grep -v '^\[' | grep '^/' | tail -1
}
base_cp=$(classpath "$BASELINE"); this_cp=$(classpath "$repo")
base_rev=$(git -C "$BASELINE" rev-parse --short HEAD); this_rev=$(git -C "$repo" rev-parse --short HEAD)

# Every combination of the parameter lists, as "-p a=x -p b=y ..." strings.
cells=("")
for p in "${params[@]}"; do
  name=${p%%=*}; next=()
  IFS=, read -r -a values <<< "${p#*=}"
  for c in "${cells[@]}"; do for v in "${values[@]}"; do next+=("$c -p $name=$v"); done; done
  cells=("${next[@]}")
done

i=0
for cell in "${cells[@]}"; do
  i=$((i + 1))
  for side in base this; do
    cp=$base_cp; [ $side = this ] && cp=$this_cp
    # shellcheck disable=SC2086
    "$JAVA_HOME/bin/java" -cp "$cp" org.openjdk.jmh.Main "$class" $cell -f "$forks" -wi "$warmups" \
      -i "$iterations" -w 1s -r 1s -rf json -rff "$out/$i-$side.json" > "$out/$i-$side.txt" 2>&1
  done
  echo "cell $i/${#cells[@]}:$cell" >&2
done

python3 - "$out" "$base_rev" "$this_rev" "$class" "$forks" "$warmups" "$iterations" <<'PY' | tee "$out/table.md"
import json, sys, glob, os
out, base, this, cls, forks, wi, it = sys.argv[1:]
print(f"# {cls}: {base} (baseline) and {this}, one run, cell by cell")
print()
print(f"JMH: {forks} forks x ({wi} warm-ups + {it} iterations of 1 s) per cell and build; tasks/s; error = 99.9 % CI half-width / score.")
print()
rows = sorted({int(os.path.basename(f).split('-')[0]) for f in glob.glob(f"{out}/*-base.json")})
keys = None
for r in rows:
    b = json.load(open(f"{out}/{r}-base.json"))[0]; t = json.load(open(f"{out}/{r}-this.json"))[0]
    if keys is None:
        keys = list(b["params"].keys())
        print("| " + " | ".join(keys) + " | baseline | ± | this | ± | this / baseline |")
        print("|" + "---|" * (len(keys) + 5))
    bs, be = float(b["primaryMetric"]["score"]), float(b["primaryMetric"]["scoreError"])
    ts, te = float(t["primaryMetric"]["score"]), float(t["primaryMetric"]["scoreError"])
    print("| " + " | ".join(str(b["params"][k]) for k in keys) +
          f" | {bs:,.0f} | {100*be/bs:.1f} % | {ts:,.0f} | {100*te/ts:.1f} % | {ts/bs:.3f} |")
PY
echo "raw: $out" >&2
