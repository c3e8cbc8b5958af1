#!/usr/bin/env bash
# `npm run test:pg`: the vitest suite on PostgreSQL (docs/decisions/0014-postgresql.md). Starts a
# throwaway cluster (scripts/pg-cluster.sh), runs vitest with TEST_DATABASE_URL pointing at it, and
# stops the cluster however the run ends. Extra arguments go to vitest (e.g. a file to run).
# PG_TEST_PORT (default 54329) picks the loopback port.
set -uo pipefail
cd "$(dirname "$0")/.."

port=${PG_TEST_PORT:-54329}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sm-pg-XXXXXX")
trap 'scripts/pg-cluster.sh stop "$dir"' EXIT

started=$(date +%s%N)
url=$(scripts/pg-cluster.sh start "$dir" "$port") || exit 1
echo "== PostgreSQL at $url (cluster started in $(( ($(date +%s%N) - started) / 1000000 )) ms)"

TEST_DATABASE_URL=$url npx vitest run "$@"
