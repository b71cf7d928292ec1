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
  hooks?: Json[];
  [key: string]: unknown;
}

/** Drops Airlock's entries from a settings object's `hooks` (and groups left empty); counts them. */
export function withoutAirlock(settings: Json): { settings: Json; removed: number } {
  const hooks = settings.hooks;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) {
    return { settings, removed: 0 };
  }
  let removed = 0;
  const kept: Json = {};
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) {
      kept[event] = groups;
      continue;
    }
    const left: Group[] = [];
    for (const group of groups as Group[]) {
      if (!Array.isArray(group?.hooks)) {
        left.push(group);
        continue;
      }
      const others = group.hooks.filter((hook) => !isAirlockEntry(hook));
      removed += group.hooks.length - others.length;
      if (others.length > 0) left.push({ ...group, hooks: others });
    }
    if (left.length > 0) kept[event] = left;
  }
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
 */
export function withAirlock(
  agent: Exclude<HookedAgent, 'codex'>,
  settings: Json,
  commands: HookCommands,
  http?: { url: string; waitMs?: number | undefined; defer?: boolean | undefined } | undefined,
): Json {
  const base = withoutAirlock(settings).settings;
  const hooks = { ...((base.hooks as Json | undefined) ?? {}) };
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
    const existing = Array.isArray(hooks[entry.event]) ? (hooks[entry.event] as Group[]) : [];
    hooks[entry.event] = [...existing, group];
  }
  return { ...base, hooks };
}
