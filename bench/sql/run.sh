#!/usr/bin/env bash
# Benchmark (not a test): `weir apply-sql` against `psql -X -1 -v ON_ERROR_STOP=1 -f` on seed 003's
# COPY file (5.65 M lines, ~116 MB), a file of 200 000 small statements, a plain pg_dump of a
# database with indexes, constraints and awkward objects (`dump`: pgbench -i -s 10, a function
# with dollar quotes, a view, a sequence, comments, a generated column, an enum; built here and
# applied into a fresh database each run) and one `SELECT 1;` (`one`: start to exit), on one fresh PostgreSQL
# started here, the table recreated before every run, psql and weir interleaved in the same run,
# the client pinned to one core (taskset -c 0, like the seed's -N1) and to two.
#
#   bench/sql/run.sh [RUNS]          RUNS per cell, default 5; prints a Markdown table
#   PREFETCH="off 0 1 2 3 4" CORES="1 2" FILES="copy small dump one" PIPELINE="256 1" PARALLEL="1 2" HUGE=1 bench/sql/run.sh 5
#
# weir runs with -Xmx64m (the heap goal). HUGE=1 also applies a 10x COPY file (56.5 M lines, ~1.2 GB)
# once with -Xmx64m. Raw timings: bench/sql/out/results.csv. Wrap it in the shared lock:
#   flock /tmp/weir-bench.lock bench/sql/run.sh 5
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
runs="${1:-5}"
prefetch="${PREFETCH:-off 0 1 2 3 4}"
pipelines="${PIPELINE:-256}" # statements per round trip; 256 is the default, 1 is psql's way
parallel="${PARALLEL:-1}"    # --parallel-copy N (connections for each COPY body; outside a transaction)
cores_list="${CORES:-1 2}"
files="${FILES:-copy small dump one}"
out="$here/out"
mkdir -p "$out"

"$repo/weir" --help >/dev/null # builds the command line if needed
# shellcheck source=../../project/pick-java.sh
. "$repo/project/pick-java.sh"
export JAVA_HOME
launcher="$repo/modules/cli/target/universal/stage/bin/weir"
python3 "$here/generate.py" "$out/data" ${HUGE:+--huge}

# A fresh server: initdb in a temporary directory, a free loopback port, as `postgres` under root.
pgbin="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}"
pgdir="$(mktemp -d /tmp/weir-bench-pg.XXXXXX)"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres: "$pgdir"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
as_pg "$pgbin/initdb" -D "$pgdir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
  -o "-p $port -k $pgdir -c listen_addresses=127.0.0.1" start >/dev/null
stop() { as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null || true; rm -rf "$pgdir"; }
trap stop EXIT
export PGHOST=127.0.0.1 PGPORT="$port" PGUSER=postgres PGDATABASE=postgres

sql() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -c "$1" >/dev/null; }
# The dump: pgbench's tables (1 M accounts, primary and foreign keys) and awkward objects, dumped plain.
if [[ " $files " == *" dump "* ]]; then
  sql "CREATE DATABASE dumpsrc"
  pgbench -i -s 10 -q --foreign-keys dumpsrc >/dev/null 2>&1
  PGDATABASE=dumpsrc psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE SEQUENCE ticket_seq START 1000;
CREATE TABLE notes (id bigint PRIMARY KEY DEFAULT nextval('ticket_seq'), body text NOT NULL,
  m mood NOT NULL DEFAULT 'ok', len int GENERATED ALWAYS AS (length(body)) STORED);
COMMENT ON TABLE notes IS 'it''s a table; with a semicolon';
INSERT INTO notes (body, m) SELECT 'note ' || i || E'\ttab; \\. not an end', 'happy' FROM generate_series(1, 10000) i;
CREATE FUNCTION f_dollar(x int) RETURNS text LANGUAGE plpgsql AS $fn$
BEGIN RETURN $q$it's; $x$ inside$q$ || x; END; $fn$;
CREATE VIEW rich AS SELECT aid, abalance FROM pgbench_accounts WHERE abalance > 0;
SQL
  pg_dump --no-owner dumpsrc >"$out/data/dump.sql"
fi
reset() {
  sql "DROP DATABASE IF EXISTS dumpdst"
  sql "CREATE DATABASE dumpdst"
  sql "DROP TABLE IF EXISTS big; DROP TABLE IF EXISTS small CASCADE"
  for k in $(seq 0 19); do sql "DROP FUNCTION IF EXISTS small_f$k(bigint)"; done
  sql "CHECKPOINT"
}
pin() { if [ "$1" = 1 ]; then echo "taskset -c 0"; else echo "taskset -c 0,1"; fi; }

csv="$out/results.csv"
echo "file,cores,client,run,seconds,peak_rss_kb,cpu_seconds,mb" >"$csv"
# measure FILE CORES CLIENT RUN COMMAND...: one timed run, appended to the CSV.
measure() {
  local file="$1" cores="$2" client="$3" run="$4"
  shift 4
  reset
  local db=postgres
  [ "$file" = dump ] && db=dumpdst
  if ! PGDATABASE=$db /usr/bin/time -o "$out/time.txt" -f "%e %M %U %S" $(pin "$cores") "$@" >/dev/null 2>"$out/last.err"; then
    cat "$out/last.err" >&2
    exit 1
  fi
  local e m u s mb
  read -r e m u s < <(tail -1 "$out/time.txt")
  mb="$(python3 -c "import os; print(round(os.path.getsize('$out/data/$file.sql') / 1e6, 3))")"
  echo "$file,$cores,$client,$run,$e,$m,$(python3 -c "print(round($u + $s, 2))"),$mb" >>"$csv"
  echo "  $file cores=$cores $client run $run: $e s, $m KB, CPU $u + $s s" >&2
}
# The flags ./weir passes on JDK 25, and the heap goal's limit.
export JAVA_OPTS="-Xmx64m --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
weir_cmd() {
  echo "$launcher -- apply-sql $1 --no-live --prefetch $2 --pipeline ${3:-256} --parallel-copy ${4:-1}"
}
psql_cmd() { echo "psql -X -1 -v ON_ERROR_STOP=1 -q -f $1"; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  host: $(nproc) cores, $(uname -r)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "java: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)"
  echo "server: $(psql -XAtc 'SELECT version()')"
  echo "settings: $(psql -XAtc "SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ' ' ORDER BY name) FROM pg_settings WHERE name IN ('shared_buffers','wal_level','fsync','synchronous_commit','max_wal_size','checkpoint_timeout','wal_buffers','full_page_writes')")"
  echo "client connection: TCP 127.0.0.1:$port (psql and weir alike)"
} | tee "$out/setup.txt" >&2

# Unmeasured: one run of each client per file (page cache, the server's first use), and one more
# of weir: its start script records the first apply of a build and makes its AOT cache on the next.
for f in $files; do
  measure "$f" 2 warm-psql 0 $(psql_cmd "$out/data/$f.sql")
  measure "$f" 2 warm-weir 0 $(weir_cmd "$out/data/$f.sql" 2)
done
first="${files%% *}"
measure "$first" 2 warm-weir-cache 0 $(weir_cmd "$out/data/$first.sql" 2)
for run in $(seq 1 "$runs"); do
  for f in $files; do
    for c in $cores_list; do
      measure "$f" "$c" psql "$run" $(psql_cmd "$out/data/$f.sql")
      for n in $prefetch; do
        for b in $pipelines; do
          for k in $parallel; do
            label="weir-p$n"
            [ "$b" = 256 ] || label="$label-pipeline$b"
            [ "$k" = 1 ] || label="$label-parallel$k"
            measure "$f" "$c" "$label" "$run" $(weir_cmd "$out/data/$f.sql" "$n" "$b" "$k")
          done
        done
      done
    done
  done
done
if [ -n "${HUGE:-}" ]; then
  measure huge 2 weir-p2 1 $(weir_cmd "$out/data/huge.sql" 2)
  measure huge 2 psql 1 $(psql_cmd "$out/data/huge.sql")
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/setup.txt" >&2
python3 "$here/summary.py" "$csv"
