#!/usr/bin/env bash
# Benchmark (not a test): an interleaved A/B of staged builds of `weir apply-sql` on one file, the
# order of the builds reversed every other round, on a PostgreSQL you started (PGHOST, PGPORT,
# PGUSER; bench/queue/pg.sh start DIR PORT makes one). Each build is a checkout whose command is
# staged (./sbt cli/stage). The file's objects (bench/sql/run.sh's small and big tables) are dropped
# before every run. Prints: round, build, wall s, user s, sys s, peak RSS KB. The first two rounds
# of a build make its start-up cache (record, then create): leave them out.
#
#   bench/sql/ab.sh FILE ROUNDS BUILD_DIR...
#   bench/sql/ab.sh bench/sql/out/data/small.sql 12 /work/main /tmp/other-checkout
set -u
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../../project/pick-java.sh
. "$here/project/pick-java.sh"
export JAVA_HOME
export JAVA_OPTS="-Xmx64m --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
file=$1; rounds=$2; shift 2
drops="DROP TABLE IF EXISTS small CASCADE; DROP TABLE IF EXISTS big;"
for k in $(seq 0 19); do drops="$drops DROP FUNCTION IF EXISTS small_f$k(bigint);"; done
psql -X -qd postgres -c "DROP DATABASE IF EXISTS weir_ab" -c "CREATE DATABASE weir_ab" >/dev/null
timing="$(mktemp)"; trap 'rm -f "$timing"' EXIT
for r in $(seq 1 "$rounds"); do
  if (( r % 2 )); then order="$*"; else order="$(printf '%s\n' "$@" | tac | tr '\n' ' ')"; fi
  for b in $order; do
    psql -X -qd weir_ab -c "$drops" >/dev/null 2>&1
    /usr/bin/time -o "$timing" -f "%e %U %S %M" "$b/modules/cli/target/universal/stage/bin/weir" -- \
      apply-sql "$file" -d weir_ab --no-live -q >/dev/null 2>&1 || echo "$b: the apply failed (round $r)" >&2
    echo "$r $b $(cat "$timing")"
  done
done
