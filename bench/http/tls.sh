#!/usr/bin/env bash
# Loopback benchmark over TLS and HTTP/2: `weir load` beside oha and wrk, against the same server in
# the same run (only same-run ratios count: the machine drifts), for issue 23.
#
# usage: bench/http/tls.sh [SECONDS]         (default 15 s per client and scenario)
#   env: SERVERS="weir go" (weir: `weir serve --tls --http2`; go: bench/http/alt/h2server.go, Go's
#        net/http, built once with `go build`), DELAYS="0 0..200ms", CS="100 1000",
#        TOOLS="weir oha wrk weir-h2 oha-h2" (add weir-jdk for the JDK's TLS engine, weir-nocache for
#        weir without its start-up cache, WEIR_NO_AOT=1), OUT=dir for
#        raw outputs, SCHEME=http for cleartext (HTTP/1.1, and h2c with prior knowledge for the -h2
#        clients): issue 23's plain goal is
#          SCHEME=http SERVERS=go DELAYS=0..200ms CS=5000 TOOLS="weir oha wrk" bench/http/tls.sh 15
# Clients: weir (https://, HTTP/1.1, the default TLS engine: BoringSSL), weir-jdk (the same on the
#          JDK's SSLEngine, --tls-engine jdk), oha (https://), wrk (https://), weir-h2 (weir load
#          --http2), oha-h2 (oha --http2). Missing peers are named and skipped. weir's start-up cache
#          (a JDK 25 AOT cache, WEIR_TRAIN_LOAD=1) is trained before the runs, so that no run's time
#          or CPU holds its training.
# Every client stops sending at the end of SECONDS; weir and oha (-w) then wait for the requests
# in flight and count their answers, their time included; wrk drops them.
# Columns: req/s (answers per second over the client's whole run: oha's own requestsPerSec also
# counts requests aborted unanswered, so the script divides its answers by its total time instead;
# "aborted": those, none with -w, and the requests weir's report counts as cut off), p50 and p99
# (ms), client CPU seconds (user + system, /usr/bin/time) per 10 000 answers (weir's "in the load":
# per request finished): the whole process (for weir: the JVM's start and its 20 000-request warm-up on its own
# server included), then during the load alone (weir's report, `client_cpu_s`; the peers, which
# start in milliseconds and do not warm up, the whole process again). Prints a Markdown table and writes it to bench/results/http-tls-<timestamp>.md.
# Not a test: nothing here runs in the test suite. Each client run is bounded by `timeout`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
secs="${1:-15}"
stamp="$(date +%Y%m%d-%H%M%S)"
out="${OUT:-$repo/bench/http/out/tls-$stamp}"
results="$repo/bench/results/http-tls-$stamp.md"
mkdir -p "$out" "$repo/bench/results"
servers="${SERVERS:-weir go}"
delays="${DELAYS:-0 0..200ms}"
cs="${CS:-100 1000}"
tools="${TOOLS:-weir oha wrk weir-h2 oha-h2}"
scheme="${SCHEME:-https}"
case $scheme in https) tls=(--tls) plain=() cacert=(--cacert "$out/server.pem") ;;
  http) tls=() plain=(-plain) cacert=() ;;
  *) echo "SCHEME must be https or http" >&2; exit 2 ;;
esac
ulimit -n "$(ulimit -Hn)"
port=18443
client_java="-Xmx256m -XX:+UseParallelGC --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
server_java="-Xmx512m -XX:+UseParallelGC --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
"$repo/weir" --help >/dev/null 2>&1 || true   # build once
# shellcheck source=../../project/pick-java.sh
. "$repo/project/pick-java.sh"
export JAVA_HOME PATH
weir="$repo/modules/cli/target/universal/stage/bin/weir"
export PATH="$PATH:$HOME/.cargo/bin"

# The peers that are here; the others are named and skipped.
have=""
for t in $tools; do
  case $t in
    weir|weir-h2|weir-jdk|weir-nocache) have="$have $t" ;;
    oha|oha-h2) if command -v oha >/dev/null; then have="$have $t"; else echo "skipped: $t (oha not found; cargo install oha)" | tee -a "$out/skipped.txt"; fi ;;
    wrk) if command -v wrk >/dev/null; then have="$have $t"; else echo "skipped: wrk (apt-get install -y wrk)" | tee -a "$out/skipped.txt"; fi ;;
    *) echo "unknown client $t" >&2; exit 2 ;;
  esac
done
srv=""
for s in $servers; do
  case $s in
    weir) srv="$srv weir" ;;
    go) if command -v go >/dev/null && (cd "$here/alt" && go build -o "$out/h2server" h2server.go); then srv="$srv go"
        else echo "skipped: the go server (no Go toolchain, or it did not build)" | tee -a "$out/skipped.txt"; fi ;;
    *) echo "unknown server $s" >&2; exit 2 ;;
  esac
done
# The start-up cache for these JAVA_OPTS, trained now if this build has none.
if [ "$have" != "${have/weir/}" ]; then
  WEIR_TRAIN_LOAD=1 JAVA_OPTS="$client_java" "$weir" load --help 2>&1 >/dev/null | grep 'start-up cache' || true
fi
echo "JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); cores: $(nproc); clients:$have; servers:$srv" | tee "$out/env.txt"

server_pid=""
pem="$out/server.pem"
start_server() { # KIND DELAY
  stop_server
  local lo=0 hi=0
  case $2 in *..*) lo=${2%%..*}; hi=${2##*..}; lo=${lo%ms}; hi=${hi%ms} ;; esac
  case $1 in
    weir) JAVA_OPTS="$server_java" "$weir" serve --port "$port" "${tls[@]}" --http2 --delay "$2" >"$out/server.log" 2>&1 &
          server_pid=$!
          for _ in $(seq 1 150); do
            { [ "$scheme" = http ] || [ -s "${TMPDIR:-/tmp}/weir-serve-$port.pem" ]; } && curl -sfk "$scheme://127.0.0.1:$port/healthz" >/dev/null && break
            sleep 0.2
          done
          [ "$scheme" = http ] || cp "${TMPDIR:-/tmp}/weir-serve-$port.pem" "$pem" ;;
    go) "$out/h2server" -port "$port" -lo "${lo}ms" -hi "${hi}ms" -pem "$pem" "${plain[@]}" >"$out/server.log" 2>&1 &
        server_pid=$!
        for _ in $(seq 1 100); do curl -sfk "$scheme://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done ;;
  esac
}
stop_server() { if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=""; fi; }
trap stop_server EXIT

table() { echo "$1" | tee -a "$results"; }
table "# weir load over $scheme:// (bench/http/tls.sh $secs, SCHEME=$scheme), $(date -u +%Y-%m-%dT%H:%MZ)"
table ""
table "$(cat "$out/env.txt"); loopback, ${secs} s per run"
table ""
table "| server | delay | c | client | answers | req/s | p50 ms | p99 ms | client CPU s / 10k req | in the load | errors | aborted |"
table "|---|---|---|---|---|---|---|---|---|---|---|---|"

# run SERVER DELAY C TOOL
run() {
  local server=$1 delay=$2 c=$3 tool=$4 url="$scheme://127.0.0.1:$port"
  local raw="$out/$server-$delay-$c-$tool.txt" tf="$out/$server-$delay-$c-$tool.time" limit=$(( secs * 4 + 60 ))
  local done=0 rps=0 p50=- p99=- errors=? inload=- aborted=0
  case $tool in
    weir|weir-h2|weir-jdk|weir-nocache)
      local h2=(); [ "$tool" = weir-h2 ] && h2=(--http2); [ "$tool" = weir-jdk ] && h2=(--tls-engine jdk)
      local noaot=""; [ "$tool" = weir-nocache ] && noaot=1
      WEIR_NO_AOT="$noaot" JAVA_OPTS="$client_java" /usr/bin/time -f '%e %U %S' -o "$tf" timeout "$limit" \
        "$weir" load "$url/{id}" --duration "${secs}s" -c "$c" "${h2[@]}" "${cacert[@]}" --no-live --format json --timeout 60s >"$raw" 2>"$raw.err" || true
      read -r done rps p50 p99 errors aborted < <(python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(d["responses"], d["responses"]/d["elapsed_s"], round(d["p50_ms"],2), round(d["p99_ms"],2), d["failures"], d["unfinished"])' "$raw" 2>/dev/null || echo "0 0 - - ? ?")
      inload=$(python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print("%.3f" % (d["client_cpu_s"]*1e4/d["finished"]))' "$raw" 2>/dev/null || echo -) ;;
    oha|oha-h2)
      local h2=(); [ "$tool" = oha-h2 ] && h2=(--http2)
      /usr/bin/time -f '%e %U %S' -o "$tf" timeout "$limit" \
        oha -z "${secs}s" -w -c "$c" "${h2[@]}" --insecure -t 60s --no-tui --output-format json "$url/" >"$raw" 2>"$raw.err" || true
      # Answers only: oha's requestsPerSec counts the requests aborted at its deadline (in flight,
      # never answered: "aborted due to deadline") as requests (oha 1.16, result_data.rs `len`).
      read -r done rps p50 p99 errors aborted < <(python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); s=d["statusCodeDistribution"]; e=d.get("errorDistribution",{})
p=d["latencyPercentiles"]; dead="aborted due to deadline"; n=sum(s.values())
print(n, n/d["summary"]["total"], round(p["p50"]*1e3,2), round(p["p99"]*1e3,2), sum(v for k,v in s.items() if k!="200")+sum(v for k,v in e.items() if k!=dead), e.get(dead,0))' "$raw" 2>/dev/null || echo "0 0 - - ? ?") ;;
    wrk)
      /usr/bin/time -f '%e %U %S' -o "$tf" timeout "$limit" wrk -t2 -c "$c" -d "${secs}s" --latency --timeout 60s "$url/" >"$raw" 2>&1 || true
      rps=$(awk '/Requests\/sec/ {print $2}' "$raw"); done=$(awk '/requests in/ {print $1}' "$raw")
      p50=$(awk '$1 == "50%" {print $2}' "$raw"); p99=$(awk '$1 == "99%" {print $2}' "$raw")
      errors=$(awk '/Socket errors/ {gsub(/,/,""); s=$4+$6+$8+$10} /Non-2xx/ {s+=$5} END {print s+0}' "$raw") ;;
  esac
  local wall=0 user=0 sys=0 cpu=-
  read -r wall user sys < "$tf" 2>/dev/null || true
  done=${done:-0}; rps=${rps:-0}
  if [ "$done" -gt 0 ] 2>/dev/null; then
    cpu=$(awk -v u="$user" -v s="$sys" -v n="$done" 'BEGIN {printf "%.3f", (u+s)*1e4/n}')
  fi
  [ "$inload" = - ] && [ "${tool#weir}" = "$tool" ] && inload=$cpu
  table "$(printf '| %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s |' "$server" "$delay" "$c" "$tool" "$done" "$rps" "$p50" "$p99" "$cpu" "$inload" "$errors" "$aborted")"
}

for server in $srv; do
  for delay in $delays; do
    start_server "$server" "$delay"
    for c in $cs; do
      for tool in $have; do
        run "$server" "$delay" "$c" "$tool"
        sleep 1
      done
    done
  done
done
stop_server
table ""
table "raw outputs: $out"
echo "table: $results"
