#!/usr/bin/env bash
# A fresh PostgreSQL 15 for the queue benchmark (or a manual try), with its default settings but
# on a port and directory of its own: bench/queue/pg.sh start DIR PORT | stop DIR.
# Under root the server runs as the postgres user (it refuses root).
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_pg() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "${1:-}" in
  start)
    dir=$2 port=$3
    rm -rf "$dir" && mkdir -p "$dir"
    [[ $(id -u) == 0 ]] && chown postgres: "$dir"
    as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
    ;;
  stop)
    as_pg "$bin/pg_ctl" -D "$2/data" -m fast -w stop >/dev/null || true
    ;;
  restart-immediate)
    as_pg "$bin/pg_ctl" -D "$2/data" -m immediate -w restart -l "$2/log" >/dev/null
    ;;
  *) echo "usage: $0 start DIR PORT | stop DIR | restart-immediate DIR" >&2; exit 2 ;;
esac
