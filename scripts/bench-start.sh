#!/usr/bin/env bash
# Measures `./run start` up to the kernel's banner ("Airlock is ready"), twice:
# the first start, then a second one with nothing changed.
#   bash scripts/bench-start.sh            in this checkout, as it is
#   bash scripts/bench-start.sh --fresh    in a fresh clone of HEAD with an empty
#                                          pnpm store (a temp --store-dir): a newcomer's first start
# Prints each start's phase lines and its time to the banner. Each kernel runs on
# a free port and one temp data dir (the second start reopens the first's store), and is stopped (by its own process id) once ready.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$PWD
if [ "${1:-}" = "--fresh" ]; then
  work=$(mktemp -d /tmp/airlock-fresh-XXXXXX)
  git clone -q "$dir" "$work/clone"
  dir="$work/clone"
  # pnpm 12 reads its settings from pnpm_config_* (npm_config_store_dir is ignored).
  export pnpm_config_store_dir="$work/store"
  echo "bench-start: fresh clone in $dir, empty store $pnpm_config_store_dir"
fi

ms_now() { date +%s%3N; }

data=$(mktemp -d)
ticks=$(getconf CLK_TCK)

# cpu_ms PID: CPU time of a process and its reaped children (the phases ./run ran before exec).
cpu_ms() {
  awk -v hz="$ticks" '{ print int(($14 + $15 + $16 + $17) * 1000 / hz) }' "/proc/$1/stat"
}

# start_once LABEL: runs ./run start in $dir on one data dir and prints the time to the banner.
start_once() {
  local label=$1 log t0 pid cpu='' ready=''
  log=$(mktemp)
  t0=$(ms_now)
  (cd "$dir" && exec ./run start --port 0 --data-dir "$data" --no-demo) >"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if grep -q 'Airlock is ready' "$log"; then
      ready=$(ms_now)
      cpu=$(cpu_ms "$pid")
      break
    fi
    sleep 0.05
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  grep '^run: ' "$log" | sed 's/^/  /'
  if [ -z "$ready" ]; then
    echo "bench-start: $label start never printed the banner; its output:" >&2
    cat "$log" >&2
    exit 1
  fi
  awk -v label="$label" -v ms=$((ready - t0)) -v cpu="$cpu" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN { printf "bench-start: %s ./run start to the banner: %.1f s (CPU %.1f s; load average %s)\n", label, ms / 1000, cpu / 1000, load }'
  rm -f "$log"
}

start_once first
start_once second
rm -rf "$data"
