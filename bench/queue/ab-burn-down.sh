#!/usr/bin/env bash
# A/B of the queue's burn-down: another checkout of weir (BASELINE, e.g. a clone at 82dad25, the
# build before issue 21) and this one, alternating, on one fresh PostgreSQL (bench/queue/pg.sh), each
# run under flock /tmp/weir-bench.lock. Usage: BASELINE=/path/to/checkout bench/queue/ab-burn-down.sh [JOBS] [ROUNDS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; repo="$(cd "$here/../.." && pwd)"
: "${BASELINE:?set BASELINE to the checkout to compare with}"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
dir=/tmp/rs-abpg
$repo/bench/queue/pg.sh start $dir $port
trap "$repo/bench/queue/pg.sh stop $dir" EXIT
psql() { "$pgbin/psql" -h 127.0.0.1 -p $port -U postgres -X -q -v ON_ERROR_STOP=1 "$@"; }
url() { echo "postgresql://postgres@127.0.0.1:$port/$1"; }
jobs=${1:-100000}; rounds=${2:-3}
for r in $(seq 1 $rounds); do
  for b in base new; do
    case $b in base) weir=$BASELINE/weir;; new) weir=$repo/weir;; esac
    db=ab_${b}_$r
    psql -d postgres -c "CREATE DATABASE $db"
    $weir queue init --url $(url $db) >/dev/null
    $weir enqueue --ids 0..$jobs --batch $jobs --url $(url $db) --no-live --format json >/dev/null
    out=$(flock /tmp/weir-bench.lock $weir worker --sleep 0 --until-empty -c 200 --batch 1000 --url $(url $db) --no-live --format json)
    echo "$r $b $(python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d['completed'], round(d['completedPerSecond']))" "$out") load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
