import type { HookedAgent } from '@airlock/core';
import {
  commandOf,
  HOOK_ENTRIES,
  type HookCommands,
  isAirlockEntry,
  nativeHookPath,
} from './entries.js';

type Json = Record<string, unknown>;
interface Group {
  matcher?: string;
  hooks?: unknown[];
  [key: string]: unknown;
}

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Why Airlock cannot merge its entries into these settings, or null: `hooks`
 * must be an object (or absent) and each event's value an array of groups,
 * the shape Claude Code and Gemini CLI read. Airlock never coerces the user's
 * own values into that shape.
 */
export function hooksShapeProblem(settings: Json): string | null {
  const hooks = settings.hooks;
  if (hooks === undefined) return null;
  if (!isJsonObject(hooks)) return `"hooks" is ${kindOf(hooks)}, not an object of events`;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      return `"hooks.${event}" is ${kindOf(groups)}, not an array of hook groups`;
    }
  }
  return null;
}

/**
 * Drops Airlock's entries from a settings object's `hooks`, and the groups and
 * events only Airlock's entries filled (the user's own, empty ones stay);
 * counts the entries. Values of another shape are left as they are.
 */
export function withoutAirlock(settings: Json): { settings: Json; removed: number } {
  const hooks = settings.hooks;
  if (!isJsonObject(hooks)) return { settings, removed: 0 };
  let removed = 0;
  const kept: Json = {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      kept[event] = groups;
      continue;
    }
    const left: unknown[] = [];
    for (const group of groups as unknown[]) {
      const entries = isJsonObject(group) ? group.hooks : undefined;
      if (!Array.isArray(entries)) {
        left.push(group);
        continue;
      }
      const others = entries.filter((hook) => !isAirlockEntry(hook));
      removed += entries.length - others.length;
      if (others.length === entries.length) left.push(group);
      else if (others.length > 0) left.push({ ...(group as Json), hooks: others });
    }
    if (left.length > 0 || groups.length === 0) kept[event] = left;
  }
  if (removed === 0) return { settings, removed };
  const next = { ...settings };
  if (Object.keys(kept).length > 0) next.hooks = kept;
  else delete next.hooks;
  return { settings: next, removed };
}

/**
 * Adds Airlock's entries to a Claude Code or Gemini CLI settings object,
 * after the hooks already there (Airlock's earlier entries replaced, so a
 * second install changes nothing). Claude Code's pre-tool entry blocks on a
 * failure of the hook (`"onFailure": "block"`), and its command hooks that
 * report what ran run in the background (`"async": true`); Gemini's timeouts
 * are in milliseconds. The turn's end is always a command hook (the Node.js
 * client, see `HookEntry.turnEnd`), also beside Claude Code's HTTP hooks.
 * @throws Error when the settings' `hooks` has another shape (see {@link hooksShapeProblem}).
 */
export function withAirlock(
  agent: Exclude<HookedAgent, 'codex'>,
  settings: Json,
  commands: HookCommands,
  http?: { url: string; waitMs?: number | undefined; defer?: boolean | undefined } | undefined,
): Json {
  const problem = hooksShapeProblem(settings);
  if (problem) throw new Error(problem);
  const base = withoutAirlock(settings).settings;
  const hooks: Json = { ...((base.hooks as Json | undefined) ?? {}) };
  for (const entry of HOOK_ENTRIES[agent]) {
    const command = commandOf(entry, commands);
    const hook: Json =
      agent === 'gemini'
        ? { name: 'airlock', type: 'command', command, timeout: entry.timeoutSeconds * 1000 }
        : http && !entry.turnEnd
          ? {
              type: 'http',
              url: `${http.url.replace(/\/+$/, '')}${nativeHookPath('claude-code', http)}`,
              headers: { Authorization: 'Bearer $AIRLOCK_TOKEN' },
              allowedEnvVars: ['AIRLOCK_TOKEN'],
              timeout: entry.timeoutSeconds,
              ...(entry.blockOnFailure ? { onFailure: 'block' } : {}),
            }
          : {
              type: 'command',
              command,
              timeout: entry.timeoutSeconds,
              ...(entry.blockOnFailure ? { onFailure: 'block' } : {}),
              ...(entry.background ? { async: true } : {}),
            };
    const group: Group = entry.tools
      ? { matcher: agent === 'gemini' ? '.*' : '*', hooks: [hook] }
      : { hooks: [hook] };
    const existing = (hooks[entry.event] as Group[] | undefined) ?? [];
    hooks[entry.event] = [...existing, group];
  }
  return { ...base, hooks };
}
