#!/usr/bin/env bash
# What `pnpm test` runs before vitest: the packages' build and the workspace's
# type-check side by side (the type-check reads the sources through the
# `source` condition, never a build, so neither waits on the other; on two
# cores this saves about 20 s of CI), then the linter. Fails if any fails.
set -uo pipefail
pnpm run typecheck &
typecheck=$!
pnpm run build
built=$?
wait "$typecheck"
checked=$?
if [ "$built" -ne 0 ] || [ "$checked" -ne 0 ]; then
  echo "prepare-tests: build exited $built, typecheck exited $checked" >&2
  exit 1
fi
exec pnpm run lint
