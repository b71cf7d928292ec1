import { BLOCK_BEGIN, BLOCK_END, codexConfigProblem } from './codex-toml.js';
import { entryCheck } from './doctor-entries.js';
import type { DoctorCheck } from './doctor-types.js';
import { HOOK_ENTRIES } from './entries.js';
import { type TomlKeyLine, tomlKeyLines } from './toml-lines.js';

type Json = Record<string, unknown>;

/** A TOML value as install writes it (basic strings, numbers, booleans), or its text when it is none of those. */
function tomlValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Airlock's block in a config.toml read into the JSON agents' shape: for
 * each event, its groups (`[[hooks.EVENT]]`, with a `matcher` when one is
 * set) and their hooks (`[[hooks.EVENT.hooks]]`: `type`, `command`,
 * `timeout`), so that one check reads every agent's entries.
 */
export function codexHookGroups(text: string): Record<string, Json[]> {
  const begin = text.indexOf(BLOCK_BEGIN);
  if (begin < 0) return {};
  const end = text.indexOf(BLOCK_END, begin);
  const groups: Record<string, Json[]> = {};
  let group: Json | null = null;
  let hook: Json | null = null;
  for (const raw of text.slice(begin, end < 0 ? undefined : end).split('\n')) {
    const line = raw.trim();
    const header = /^\[\[\s*hooks\.(\w+)(\.hooks)?\s*\]\]$/.exec(line);
    if (header) {
      const event = header[1] as string;
      const eventGroups = groups[event] ?? [];
      groups[event] = eventGroups;
      if (header[2] === undefined || group === null || eventGroups.at(-1) !== group) {
        group = { hooks: [] };
        eventGroups.push(group);
      }
      hook = null;
      if (header[2] !== undefined) {
        hook = {};
        (group.hooks as Json[]).push(hook);
      }
      continue;
    }
    const key = /^(\w+)\s*=\s*(.+)$/.exec(line);
    if (key) (hook ?? group ?? {})[key[1] as string] = tomlValue((key[2] as string).trim());
  }
  return groups;
}

/** The line of a config.toml that turns Codex hooks off (`[features] hooks = false`, or the older `codex_hooks`), or null. */
export function hooksSwitchedOff(text: string): string | null {
  const off = /^(?:codex_hooks|hooks)\s*=\s*false\b/;
  // The switch as TOML reads its key (`"hook\u0073" = false` too): features.hooks or features.codex_hooks.
  const switchedOff = (table: string | null, set: TomlKeyLine['set']) => {
    const key = [...(table === null ? [] : [table]), ...(set?.key ?? [])];
    return (
      key.length === 2 &&
      key[0] === 'features' &&
      (key[1] === 'hooks' || key[1] === 'codex_hooks') &&
      /^false\b/.test(set?.value ?? '')
    );
  };
  const found = tomlKeyLines(text.split('\n')).find(
    ({ table, line, set }) =>
      switchedOff(table, set) ||
      (table === 'features' && off.test(line)) ||
      (table === null &&
        (/^features\s*\.\s*(?:codex_hooks|hooks)\s*=\s*false\b/.test(line) ||
          /^features\s*=\s*\{.*\b(?:codex_hooks|hooks)\s*=\s*false\b/.test(line))),
  );
  return found ? found.line : null;
}

/**
 * Checks Codex's config.toml: readable as TOML Airlock can tell apart, hooks
 * not switched off in `[features]`, and each event of Airlock's block
 * registered as install writes it (see `entryCheck`).
 */
export function codexChecks(path: string, text: string): DoctorCheck[] {
  const name = 'codex hooks';
  const fix = 'airlock hooks install codex';
  const trust: DoctorCheck = {
    check: 'codex hook trust',
    status: 'warn',
    detail: 'Codex skips hooks it has not been told to trust, silently',
    fix: 'trust them once in Codex, or run codex with --dangerously-bypass-hook-trust in automation',
  };
  const problem = codexConfigProblem(text);
  if (problem) {
    return [
      {
        check: name,
        status: 'fail',
        detail: `${path}: ${problem}`,
        fix: 'fix config.toml, then airlock hooks install codex',
      },
      trust,
    ];
  }
  if (!text.includes(BLOCK_BEGIN)) {
    return [{ check: name, status: 'fail', detail: `${path} has no Airlock hooks`, fix }, trust];
  }
  const off = hooksSwitchedOff(text);
  const checks: DoctorCheck[] = [
    off
      ? {
          check: name,
          status: 'fail',
          detail: `${path} turns Codex hooks off (${off}): no call reaches Airlock`,
          fix: `remove that line from ${path}`,
        }
      : { check: name, status: 'ok', detail: `${path} holds Airlock's hooks` },
  ];
  const groups = codexHookGroups(text);
  for (const entry of HOOK_ENTRIES.codex) {
    checks.push({
      check: `${name} ${entry.event}`,
      ...entryCheck('codex', entry, groups[entry.event] ?? []),
    });
  }
  return [...checks, trust];
}
