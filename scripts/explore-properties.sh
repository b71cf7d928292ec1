#!/usr/bin/env bash
# Runs every property test (the test files that import fast-check) from new seeds, ROUNDS rounds
# (5 unless set), one seed per round. `./run test` and CI draw from one fixed seed
# (scripts/testing/property-seed.ts) so they never fail on a draw; this is where new draws are
# tried. A failing round prints its seed: `PROPERTY_SEED=<seed> pnpm vitest run <file>` replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-5}"
mapfile -t files < <(git grep -l "from 'fast-check'" -- '*.test.ts')
for ((round = 1; round <= rounds; round++)); do
  seed=$(( (RANDOM << 15 | RANDOM) ))
  echo "round ${round} of ${rounds}: PROPERTY_SEED=${seed}, ${#files[@]} files"
  if ! PROPERTY_SEED="${seed}" npx vitest run "${files[@]}"; then
    echo "a property failed from PROPERTY_SEED=${seed}; replay: PROPERTY_SEED=${seed} pnpm vitest run <file>" >&2
    exit 1
  fi
done
