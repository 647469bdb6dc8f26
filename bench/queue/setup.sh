# Shared by bench/queue/run.sh and bench/queue/scale.sh: source it after setting `here` and `repo`.
# Sets the worker flags of every weir run (concurrency, batch), River's version, the port and work
# directory (WEIR_BENCH_PORT, WEIR_BENCH_DIR), `psql`, `lock` (every measurement runs under
# `flock /tmp/weir-bench.lock`: nothing else may benchmark on these cores at the same time) and
# `url DB`; picks the JDK ./weir runs on; builds River's command line (`river`) and weir's staged
# command once, outside the measurements; starts a fresh PostgreSQL (bench/queue/pg.sh), stopped
# on exit.
river_version="v0.29.0"
concurrency=200
batch=1000
port="${WEIR_BENCH_PORT:-$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")}"
work="${WEIR_BENCH_DIR:-/tmp/weir-queue-bench}"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
psql() { "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -q -v ON_ERROR_STOP=1 "$@"; }
lock() { flock /tmp/weir-bench.lock "$@"; }
url() { echo "postgresql://postgres@127.0.0.1:$port/$1"; }
mkdir -p "$work" "$repo/bench/results"
export PATH="$PATH:/usr/local/go/bin"
# shellcheck source=../../project/pick-java.sh
. "$repo/project/pick-java.sh" # the JDK ./weir runs on
river=$("$here/river.sh" "$river_version" "$work")
"$repo/weir" --help >/dev/null 2>&1 # builds the staged CLI once
"$here/pg.sh" start "$work/pg" "$port"
trap '"$here/pg.sh" stop "$work/pg"' EXIT
