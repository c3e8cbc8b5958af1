#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests (docs/decisions/0014-postgresql.md), from the machine's
# Debian packages:
#   scripts/pg-cluster.sh start DIR PORT   initdb into DIR/data, start on 127.0.0.1:PORT, create the
#                                          ordinary role `sweet` (LOGIN CREATEDB, not a superuser)
#                                          and its database `sweet`; prints the URL to use
#   scripts/pg-cluster.sh stop DIR         stop the cluster and remove DIR
# The cluster trusts loopback connections, has fsync off and never syncs: test data only. Autovacuum
# is off: its workers belong to no role the tests may end, and each test database lives for seconds
# (scripts/pg-drop.mjs still survives one, and any other backend it may not end).
set -euo pipefail

usage() { echo "usage: $0 start DIR PORT | stop DIR" >&2; exit 2; }
MARKER=.sweet-pg-cluster

pg_bin() {
  local initdb
  initdb=$(ls -1 /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$initdb" ]; then
    [ "$(id -u)" -eq 0 ] || { echo "PostgreSQL is not installed (apt-get install postgresql, as root)" >&2; exit 1; }
    echo "== installing Debian's postgresql" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq -o DPkg::Lock::Timeout=600 postgresql >/dev/null 2>&1 || {
      apt-get update -qq -o DPkg::Lock::Timeout=600
      apt-get install -y -qq -o DPkg::Lock::Timeout=600 postgresql >/dev/null
    }
    initdb=$(ls -1 /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)
  fi
  dirname "$initdb"
}

# initdb refuses root: run the server's tools as the postgres user when we are root.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local dir=$1 port=$2 bin
  bin=$(pg_bin)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ -e "$dir/data" ] && { echo "$dir/data exists: stop that cluster first" >&2; exit 1; }
  touch "$dir/$MARKER"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2; exit 1;
  }
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -s start \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c autovacuum=off" || {
    cat "$dir/server.log" >&2; exit 1;
  }
  # the app's role: owns its database, may create databases (one copy per test file), nothing more
  as_owner "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d postgres \
    -c "CREATE ROLE sweet LOGIN CREATEDB NOSUPERUSER NOCREATEROLE" \
    -c "CREATE DATABASE sweet OWNER sweet"
  echo "postgres://sweet@127.0.0.1:$port/sweet"
}

stop() {
  local dir=$1 bin
  [ -d "$dir" ] || return 0
  [ -e "$dir/$MARKER" ] || { echo "$dir was not made by $0: left alone" >&2; exit 1; }
  if [ -e "$dir/data/postmaster.pid" ]; then
    bin=$(pg_bin)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -s stop || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) [ $# -eq 3 ] || usage; start "$2" "$3" ;;
  stop) [ $# -eq 2 ] || usage; stop "$2" ;;
  *) usage ;;
esac
