import { join, resolve } from 'node:path';
import type { DoctorCheck } from './doctor-types.js';
import { readTextFile } from './file-writes.js';
import { isJsonObject } from './json-settings.js';
import { type InstallEnv, type InstallScope, settingsPath } from './targets.js';

/** A settings file's `disableAllHooks`, or undefined when it sets none (or cannot be read: that is another check's). */
function disableAllHooksOf(path: string): unknown {
  try {
    const text = readTextFile(path);
    const settings: unknown = text === null ? null : JSON.parse(text);
    return isJsonObject(settings) ? settings.disableAllHooks : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Claude Code settings files that can switch the hooks of `scope` off,
 * the one that wins first: a project's `.claude/settings.local.json`, its
 * `.claude/settings.json`, then the user's `~/.claude/settings.json` (Claude
 * Code merges them, a project's over the user's).
 */
function settingsInForce(scope: InstallScope, env: InstallEnv): string[] {
  const user = settingsPath('claude-code', { kind: 'user' }, env);
  if (scope.kind === 'user') return [user];
  const project = settingsPath('claude-code', scope, env);
  return [join(resolve(scope.dir), '.claude', 'settings.local.json'), project, user];
}

/**
 * A failed check when `"disableAllHooks": true` is what Claude Code reads for
 * this scope, naming the file it comes from; null when hooks run.
 */
export function claudeHooksSwitchedOff(scope: InstallScope, env: InstallEnv): DoctorCheck | null {
  for (const path of settingsInForce(scope, env)) {
    const value = disableAllHooksOf(path);
    if (typeof value !== 'boolean') continue;
    if (!value) return null;
    return {
      check: 'claude-code hooks',
      status: 'fail',
      detail: `${path} sets "disableAllHooks": true: Claude Code runs no hook, so no call reaches Airlock`,
      fix: `remove "disableAllHooks" from ${path}`,
    };
  }
  return null;
}
