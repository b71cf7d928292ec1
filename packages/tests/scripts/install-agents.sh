#!/usr/bin/env bash
# Installs the pinned coding-agent CLIs (Claude Code, Codex, Gemini CLI) for
# the agent tests only, into packages/tests/.agents-cache: never into the
# workspace's node_modules (they are large, about 800 MB together). Idempotent:
# a cache whose stamp matches the pins is kept as it is.
# Usage: bash packages/tests/scripts/install-agents.sh   (prints the bin folder)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="${AIRLOCK_AGENTS_CACHE:-$here/.agents-cache}"

# The pins: re-measure docs/agents.md's fail-open table when one moves.
pins=(
  "@anthropic-ai/claude-code@2.1.332"
  "@openai/codex@0.169.0"
  "@google/gemini-cli@0.61.0"
)
stamp="${pins[*]}"

if [ -f "$cache/.stamp" ] && [ "$(cat "$cache/.stamp")" = "$stamp" ] \
  && [ -x "$cache/node_modules/.bin/claude" ] && [ -x "$cache/node_modules/.bin/codex" ] \
  && [ -x "$cache/node_modules/.bin/gemini" ]; then
  echo "$cache/node_modules/.bin"
  exit 0
fi

mkdir -p "$cache"
# A package.json of its own, so npm never walks up into the pnpm workspace.
printf '{ "name": "airlock-agents-cache", "private": true }\n' >"$cache/package.json"
rm -f "$cache/.stamp"
# Scripts are skipped (Claude Code's is run below, alone). --no-save keeps no
# lock to drift.
npm install --prefix "$cache" --no-audit --no-fund --no-save --ignore-scripts \
  --loglevel=error "${pins[@]}" >&2
# Claude Code's postinstall only links its platform binary over a placeholder
# (local, no network); it is the one script needed to run the binary.
(cd "$cache/node_modules/@anthropic-ai/claude-code" && node install.cjs >&2)
echo "$stamp" >"$cache/.stamp"
echo "$cache/node_modules/.bin"
