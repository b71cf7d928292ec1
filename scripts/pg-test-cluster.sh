#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster for the test suite and print the
# environment line that points the tests at it:
#   eval "$(bash scripts/pg-test-cluster.sh)"
# It runs as a non-root user (`postgres`, created when missing), listens on
# 127.0.0.1 on a free port, and lives in a temp dir. Stop it with
#   bash scripts/pg-test-cluster.sh stop   (reads AIRLOCK_TEST_PG_DIR)
set -euo pipefail

log() { echo "pg-test-cluster: $*" >&2; }

find_bin() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v pg_ctl)")"
    return
  fi
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/pg_ctl" ]; then echo "$d"; return; fi
  done
  return 1
}

if [ "${1:-}" = "stop" ]; then
  dir="${AIRLOCK_TEST_PG_DIR:?set AIRLOCK_TEST_PG_DIR to the cluster dir}"
  bin="$(find_bin)"
  runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate stop >&2 || true
  rm -rf "$dir"
  exit 0
fi

if ! bin="$(find_bin)"; then
  log "PostgreSQL not found; installing it with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >&2
  bin="$(find_bin)"
fi

run_as=()
if [ "$(id -u)" = "0" ]; then
  if ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  fi
  run_as=(runuser -u postgres --)
fi

dir="$(mktemp -d /tmp/airlock-pg.XXXXXX)"
chmod 755 "$dir"
if [ "${#run_as[@]}" -gt 0 ]; then chown postgres "$dir"; fi

port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"

"${run_as[@]}" "$bin/initdb" -D "$dir/data" -U airlock --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; exit 1; }
"${run_as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
  start >&2
"${run_as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U airlock airlock_test >&2

log "cluster ready in $dir on 127.0.0.1:$port"
echo "export AIRLOCK_TEST_DATABASE_URL=postgres://airlock@127.0.0.1:$port/airlock_test"
echo "export AIRLOCK_TEST_PG_DIR=$dir"
