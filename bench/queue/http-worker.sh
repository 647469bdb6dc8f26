#!/usr/bin/env bash
# `weir worker --http` against `weir load` at the same concurrency, on the same independent server
# (bench/http/alt/h2server.go -plain: Go's net/http, each request delayed uniformly in LO..HI ms),
# in one run, alternating (issue 23: the worker's rate at least 0.9x the load's, with the same
# tail). The worker burns down JOBS queued ids (--until-empty) from a fresh database on a fresh
# PostgreSQL (bench/queue/pg.sh); the load sends JOBS requests. Each measurement runs under
# flock /tmp/weir-bench.lock.
#
#   [LO=0 HI=200] [BASELINE=/other/checkout] bench/queue/http-worker.sh [JOBS=20000] [C=500] [ROUNDS=2] [BATCH=500]
#
# With BASELINE, that checkout's `weir worker` runs too in each round (an A/B of the worker).
# Beside each client's own figures, what the server saw of it (bench/queue/in-flight.py): the mean
# requests in flight, the share of the time with at least 0.9 x C in flight, and the steady rate
# (10th to 90th percentile of the run's requests).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; repo="$(cd "$here/../.." && pwd)"
jobs=${1:-20000}; c=${2:-500}; rounds=${3:-2}; batch=${4:-500}
lo=${LO:-0}; hi=${HI:-200}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"; }
port=$(free_port); http_port=$(free_port)
dir=/tmp/weir-http-worker-bench; out=$(mktemp -d)
export PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || { echo "http-worker.sh: needs go (for bench/http/alt/h2server.go)" >&2; exit 2; }
(cd "$repo/bench/http/alt" && go build -o "$out/h2server" h2server.go)
"$repo/bench/queue/pg.sh" start $dir $port
srv=""
cleanup() { [ -n "$srv" ] && kill $srv 2>/dev/null || true; "$repo/bench/queue/pg.sh" stop $dir; rm -rf "$out"; }
trap cleanup EXIT
"$out/h2server" -plain -port $http_port -lo ${lo}ms -hi ${hi}ms -trace "$out/trace" >"$out/server.log" 2>&1 &
srv=$!
for _ in $(seq 1 50); do curl -fs -o /dev/null "http://127.0.0.1:$http_port/x" && break; sleep 0.2; done
psql() { "$pgbin/psql" -h 127.0.0.1 -p $port -U postgres -X -q -v ON_ERROR_STOP=1 "$@"; }
ulimit -n 20000 2>/dev/null || true
echo "weir worker --http vs weir load: $jobs jobs/requests, -c $c, batch $batch, server Go net/http ${lo}..${hi} ms"
printf '%-6s %-8s %10s %9s %9s %6s   %s\n' round client "per s" "p50 ms" "p99 ms" load "server saw: s, mean in flight, >=0.9c, steady per s"
seen() { sleep 0.2; python3 "$here/in-flight.py" "$out/trace" "$1" "$c" | tr '\t' ' '; }
worker_run() { # label weir-launcher database
  local url="postgresql://postgres@127.0.0.1:$port/$3"
  psql -d postgres -c "CREATE DATABASE $3"
  "$repo/weir" queue init --url "$url" >/dev/null
  "$repo/weir" enqueue --ids 0..$jobs --url "$url" --no-live --format json >/dev/null
  local w o
  o=$(stat -c %s "$out/trace")
  w=$(flock /tmp/weir-bench.lock "$2" worker --http "http://127.0.0.1:$http_port/{payload}" \
        -c $c --batch $batch --until-empty --no-live --url "$url" --format json)
  python3 - "$w" "$r" "$(cut -d' ' -f1 /proc/loadavg)" "$1" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print(f"{sys.argv[2]:<6} {sys.argv[4]:<8} {d['completedPerSecond']:>10.0f} {d['latencyP50Ms']:>9.1f} {d['latencyP99Ms']:>9.1f} {sys.argv[3]:>6}", end="   ")
PY
  seen "$o"
}
for r in $(seq 1 "$rounds"); do
  worker_run worker "$repo/weir" w$r
  [ -n "${BASELINE:-}" ] && worker_run baseline "$BASELINE/weir" b$r
  o=$(stat -c %s "$out/trace")
  l=$(flock /tmp/weir-bench.lock "$repo/weir" load "http://127.0.0.1:$http_port/{id}" -n $jobs -c $c --no-live --format json)
  python3 - "$l" "$r" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print(f"{sys.argv[2]:<6} {'load':<8} {d['throughput_rps']:>10.0f} {d['p50_ms']:>9.1f} {d['p99_ms']:>9.1f} {sys.argv[3]:>6}", end="   ")
PY
  seen "$o"
done
