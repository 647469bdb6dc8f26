#!/usr/bin/env bash
# Loopback HTTP benchmark: `weir load` beside hey, wrk, oha and the seed's aiohttp client, all
# against one `weir serve`, in the same run (only same-run ratios count: the machine drifts).
#
# usage: bench/http/run.sh [SCENARIO...]
#   scenarios: c50 c1000 c5000 c19000 zero (default: all), steady (zero delay, 2 M requests),
#              goal1000 (weir only, long), tenm (10 M)
#   env: TOOLS="weir hey wrk oha aiohttp" to choose clients; OUT=dir for raw outputs;
#        BASELINE=/path/to/other/checkout adds the client `baseline`: that checkout's weir (staged
#        there once), to compare two builds in one run (e.g. TOOLS="baseline weir wrk").
# Needs: hey wrk (apt-get install -y hey wrk), oha (cargo install oha), aiohttp (pip install aiohttp).
# Each run is bounded by `timeout`; nothing here runs in the test suite.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${OUT:-$repo/bench/http/out/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
tools="${TOOLS:-weir hey wrk oha aiohttp}"
ulimit -n "$(ulimit -Hn)"   # 19 000 connections need the hard limit (20 000 here)
port=18080
# Netty 4.1 uses sun.misc.Unsafe for buffers only when allowed (JDK 24+ warns otherwise): +14 % req/s at c=5000.
client_java="-Xmx256m -XX:+UseParallelGC --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
server_java="-Xmx512m -XX:+UseParallelGC --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
"$repo/weir" --help >/dev/null 2>&1 || true   # build once
# shellcheck source=../../project/pick-java.sh
. "$repo/project/pick-java.sh"                 # the JDK ./weir uses (>= 21), not whatever is on PATH
export JAVA_HOME PATH
weir="$repo/modules/cli/target/universal/stage/bin/weir"
if [ -n "${BASELINE:-}" ]; then
  "$BASELINE/weir" --help >/dev/null 2>&1 || true
  baseline="$BASELINE/modules/cli/target/universal/stage/bin/weir"
fi
echo "JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); cores: $(nproc); open files: $(ulimit -n)" | tee "$out/env.txt"

server_pid=""
start_server() { # DELAY [C [N]]
  stop_server
  JAVA_OPTS="$server_java" "$weir" serve --port "$port" --delay "$1" >"$out/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
  # Warm the server so that the first client (weir) is not charged for its JIT: warmed for 5 s at
  # c = 200, the first client of a c = 5 000 run ran 8-15 % slower than the same client run again;
  # warmed for 15 s at the scenario's concurrency, within 2 %.
  "$weir" load "http://127.0.0.1:$port/{id}" --duration 15s -c "${2:-200}" --no-live --timeout 60s >/dev/null 2>&1 || true
  # ... and the first client after that still ran 5-10 % slower at zero delay than the same client
  # run again (oha: 145 720, 152 884, 157 070 req/s in a row), so one more run of the scenario's
  # own size, not measured, settles the server before the first measured client.
  if [ -n "${3:-}" ]; then
    "$weir" load "http://127.0.0.1:$port/{id}" -n "$3" -c "${2:-200}" --no-live --timeout 60s >/dev/null 2>&1 || true
  fi
}
stop_server() { if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=""; fi; }
trap stop_server EXIT
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

printf '| scenario | client | requests | c | req/s | finite-N ideal req/s | efficiency | Little eff. | client CPU µs/req | client peak RSS MB | server CPU µs/req | errors |\n' | tee "$out/table.md"
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n' | tee -a "$out/table.md"

# run SCENARIO TOOL N C LO_S HI_S SECONDS
run() {
  local scen=$1 tool=$2 n=$3 c=$4 lo=$5 hi=$6 secs=$7
  local url="http://127.0.0.1:$port" raw="$out/$scen-$tool.txt" tf="$out/$scen-$tool.time"
  # Every client meets the same delays: weir asks for ids 0..N-1, the others for / (keyed by
  # arrival number, which POST /reset restarts at 0).
  curl -sf -X POST "$url/reset" >/dev/null
  local s0; s0=$(ticks "$server_pid")
  local limit=$(( secs * 4 + 60 ))
  case $tool in
    weir|baseline) local bin=$weir; [ "$tool" = baseline ] && bin=$baseline
          JAVA_OPTS="$client_java" /usr/bin/time -f '%e %U %S %M' -o "$tf" timeout "$limit" \
            "$bin" load "$url/{id}" -n "$n" -c "$c" --no-live --format json --timeout 60s >"$raw" 2>&1 || true ;;
    hey) /usr/bin/time -f '%e %U %S %M' -o "$tf" timeout "$limit" hey -n "$n" -c "$c" -t 60 "$url/" >"$raw" 2>&1 || true ;;
    oha) /usr/bin/time -f '%e %U %S %M' -o "$tf" timeout "$limit" oha -n "$n" -c "$c" -t 60s --no-tui --output-format json "$url/" >"$raw" 2>&1 || true ;;
    wrk) /usr/bin/time -f '%e %U %S %M' -o "$tf" timeout "$limit" wrk -t2 -c "$c" -d "${secs}s" --timeout 60s "$url/" >"$raw" 2>&1 || true ;;
    aiohttp) /usr/bin/time -f '%e %U %S %M' -o "$tf" timeout "$limit" python3 "$here/aiohttp_client.py" "$url/" "$n" "$c" >"$raw" 2>&1 || true ;;
  esac
  local s1; s1=$(ticks "$server_pid")
  local done rps errors
  case $tool in
    weir|baseline) read -r done rps errors < <(python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(d["finished"], d["throughput_rps"], d["failures"])' "$raw" 2>/dev/null || echo "0 0 ?") ;;
    # hey's tables stop at 1 000 000 results; a hey run that reports has sent all of its -n
    hey) rps=$(awk '/Requests\/sec/ {print $2}' "$raw")
         done=$(awk '/Status code distribution/ {sec=1; next} /Error distribution/ {sec=2; next}
                     sec == 1 && /^ *\[[0-9]+\]/ {s+=$2} sec == 2 && /^ *\[[0-9]+\]/ {gsub(/[\[\]]/,"",$1); s+=$1}
                     END {print s+0}' "$raw")
         if [ "$done" -ge 1000000 ]; then done=$n; fi
         errors=$(awk '/Error distribution/ {f=1; next} f && /\[/ {gsub(/[\[\]]/,"",$1); s+=$1} END {print s+0}' "$raw")
         errors=$(( errors + $(awk '/\[[0-9]+\]/ && $1 != "[200]" {s+=$2} END {print s+0}' "$raw") )) ;;
    oha) rps=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["summary"]["requestsPerSec"])' "$raw" 2>/dev/null || echo 0)
         done=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(d["statusCodeDistribution"].values())+sum(d.get("errorDistribution",{}).values()))' "$raw" 2>/dev/null || echo 0)
         errors=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(v for k,v in d["statusCodeDistribution"].items() if k!="200")+sum(d.get("errorDistribution",{}).values()))' "$raw" 2>/dev/null || echo "?") ;;
    wrk) rps=$(awk '/Requests\/sec/ {print $2}' "$raw"); done=$(awk '/requests in/ {print $1}' "$raw")
         errors=$(awk '/Socket errors/ {gsub(/,/,""); s=$4+$6+$8+$10} /Non-2xx/ {s+=$5} END {print s+0}' "$raw") ;;
    aiohttp) done=$(grep -o '"finished": [0-9]*' "$raw" | awk '{print $2}'); rps=$(grep -o '"rps": [0-9.]*' "$raw" | awk '{print $2}')
             errors=$(grep -o '"errors": [0-9]*' "$raw" | awk '{print $2}') ;;
  esac
  done=${done:-0}; rps=${rps:-0}; errors=${errors:-?}
  read -r wall user sys rss < "$tf" || { wall=0; user=0; sys=0; rss=0; }
  local cpu_us="-" srv_us="-" ideal="-" eff="-" little="-"
  if [ "${done:-0}" -gt 0 ]; then
    cpu_us=$(awk -v u="$user" -v s="$sys" -v n="$done" 'BEGIN {printf "%.1f", (u+s)*1e6/n}')
    srv_us=$(awk -v t=$((s1 - s0)) -v hz="$hz" -v n="$done" 'BEGIN {printf "%.1f", t/hz*1e6/n}')
    if awk -v h="$hi" 'BEGIN {exit !(h > 0)}'; then
      local span; span=$(python3 "$here/ideal.py" "$done" "$c" "$lo" "$hi")
      ideal=$(awk -v n="$done" -v s="$span" 'BEGIN {printf "%.0f", n/s}')
      eff=$(awk -v r="$rps" -v i="$ideal" 'BEGIN {printf "%.1f %%", 100*r/i}')
      little=$(awk -v r="$rps" -v c="$c" -v lo="$lo" -v hi="$hi" 'BEGIN {printf "%.1f %%", 100*r/(c/((lo+hi)/2))}')
    fi
  fi
  [ "$tool" = wrk ] && ideal="(duration ${secs}s)" && eff="-"
  printf '| %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %.0f | %s | %s |\n' "$scen" "$tool" "$done" "$c" "$rps" "$ideal" "$eff" "$little" "$cpu_us" "$(awk -v k="$rss" 'BEGIN {print k/1024}')" "$srv_us" "$errors" | tee -a "$out/table.md"
}

# scenario NAME DELAY LO HI C N_WEIR N_AIOHTTP SECONDS
scenario() {
  local name=$1 delay=$2 lo=$3 hi=$4 c=$5 n=$6 npy=$7 secs=$8
  start_server "$delay" "$c" "$n"
  for tool in $tools; do
    local nt=$n; [ "$tool" = aiohttp ] && nt=$npy
    run "$name" "$tool" "$nt" "$c" "$lo" "$hi" "$secs"
    sleep 2
  done
}

scenarios="${*:-c50 c1000 c5000 c19000 zero}"
for s in $scenarios; do
  case $s in
    c50) scenario c50 0..200ms 0 0.2 50 10000 10000 20 ;;
    c1000) scenario c1000 0..200ms 0 0.2 1000 200000 60000 20 ;;
    c5000) scenario c5000 0..200ms 0 0.2 5000 1000000 100000 25 ;;
    c19000) scenario c19000 0..2s 0 2 19000 570000 100000 35 ;;
    zero) scenario zero 0 0 0 100 500000 100000 15 ;;
    steady) scenario steady 0 0 0 100 2000000 100000 15 ;;   # zero delay, long enough that start-up weighs little
    goal1000) tools=weir scenario goal1000 0..200ms 0 0.2 1000 600000 0 60 ;;
    tenm) start_server 0..200ms 5000
          JAVA_OPTS="$client_java -Xlog:gc:file=$out/tenm-gc.log" /usr/bin/time -f '%e %U %S %M' -o "$out/tenm.time" \
            timeout 1200 "$weir" load "http://127.0.0.1:$port/{id}" -n 10000000 -c 5000 --server-delay 0..200ms --no-live >"$out/tenm.txt" 2>&1 || true
          cat "$out/tenm.txt"; echo "time (wall user sys maxrssKB): $(cat "$out/tenm.time")"
          grep -o 'Pause Young[^>]*->[0-9]*M' "$out/tenm-gc.log" | awk -F'->' '{print $2}' | awk 'NR % 50 == 1 {printf "%s ", $0} END {print ""}' | sed 's/^/heap after GC, every 50th pause: /' ;;
    *) echo "unknown scenario $s" >&2; exit 2 ;;
  esac
done
stop_server
echo "raw outputs: $out"
