import { airlockHooks } from './doctor-entries.js';
import type { DoctorCheck } from './doctor-types.js';
import { readTextFile } from './file-writes.js';
import { parseAsAgent } from './json-comments.js';
import { isJsonObject } from './json-settings.js';
import { type InstallEnv, type InstallScope, settingsPath } from './targets.js';

type Json = Record<string, unknown>;

/** A Gemini CLI settings file's `hooksConfig`, read as Gemini reads it; undefined when it has none or cannot be read (another check's). */
function hooksConfigOf(path: string): Json | undefined {
  try {
    const text = readTextFile(path);
    const settings = text === null ? null : parseAsAgent('gemini', text);
    const hooksConfig = isJsonObject(settings) ? settings.hooksConfig : undefined;
    return isJsonObject(hooksConfig) ? hooksConfig : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Gemini CLI settings files that can switch the hooks of `scope` off,
 * the one that wins first: a project's `.gemini/settings.json`, then the
 * user's `~/.gemini/settings.json` (Gemini CLI merges a workspace's over
 * the user's).
 */
function settingsInForce(scope: InstallScope, env: InstallEnv): string[] {
  const user = settingsPath('gemini', { kind: 'user' }, env);
  return scope.kind === 'user' ? [user] : [settingsPath('gemini', scope, env), user];
}

/** The name Gemini CLI gives a hook (its `name`, else its command), which `hooksConfig.disabled` lists. */
function geminiHookName(hook: Json): unknown {
  return hook.name || hook.command;
}

/**
 * A failed check when Gemini CLI will run none of Airlock's hooks of this
 * scope: `hooksConfig.enabled: false` in the file that wins (no hook runs
 * at all), or Airlock's hook named in a `hooksConfig.disabled` list (the
 * lists of every file count); null when they run. `settings` is the scope's
 * file as read, whose Airlock entries the disabled lists are checked against.
 */
export function geminiHooksSwitchedOff(
  scope: InstallScope,
  env: InstallEnv,
  settings: Json,
): DoctorCheck | null {
  const check = 'gemini hooks';
  const files = settingsInForce(scope, env).map((path) => ({ path, config: hooksConfigOf(path) }));
  const deciding = files.find(({ config }) => typeof config?.enabled === 'boolean');
  if (deciding?.config?.enabled === false) {
    return {
      check,
      status: 'fail',
      detail: `${deciding.path} sets "hooksConfig": {"enabled": false}: Gemini CLI runs no hook, so no call reaches Airlock`,
      fix: `remove "enabled" from "hooksConfig" in ${deciding.path}`,
    };
  }
  const hooks = isJsonObject(settings.hooks) ? settings.hooks : {};
  const names = new Set(
    Object.values(hooks)
      .flatMap((groups) => (Array.isArray(groups) ? airlockHooks(groups) : []))
      .map(({ hook }) => geminiHookName(hook)),
  );
  for (const { path, config } of files) {
    const disabled = Array.isArray(config?.disabled) ? config.disabled : [];
    const named = disabled.find((name) => names.has(name));
    if (named === undefined) continue;
    return {
      check,
      status: 'fail',
      detail: `${path} lists Airlock's hook ${JSON.stringify(named)} in "hooksConfig.disabled": Gemini CLI skips it, so no call reaches Airlock`,
      fix: `remove ${JSON.stringify(named)} from "hooksConfig.disabled" in ${path}`,
    };
  }
  return null;
}
