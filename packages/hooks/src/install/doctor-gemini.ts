import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
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
 * Where Gemini CLI reads what an administrator sets, as it finds it: its
 * system settings (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`, else the platform's
 * file), over every other, and its system defaults
 * (`GEMINI_CLI_SYSTEM_DEFAULTS_PATH`, else `system-defaults.json` beside
 * them), under every other.
 */
export function geminiSystemPaths(
  env: InstallEnv,
  platform: NodeJS.Platform = process.platform,
): { settings: string; defaults: string } {
  const settings =
    env.GEMINI_CLI_SYSTEM_SETTINGS_PATH ||
    (platform === 'darwin'
      ? '/Library/Application Support/GeminiCli/settings.json'
      : platform === 'win32'
        ? 'C:\\ProgramData\\gemini-cli\\settings.json'
        : '/etc/gemini-cli/settings.json');
  const defaults =
    env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH || join(dirname(settings), 'system-defaults.json');
  return { settings, defaults };
}

/**
 * The Gemini CLI settings files that can switch the hooks of `scope` off,
 * the one that wins first: the administrator's system settings, a
 * project's `.gemini/settings.json`, the user's `~/.gemini/settings.json`
 * (Gemini CLI merges a workspace's over the user's), then the system
 * defaults.
 */
function settingsInForce(scope: InstallScope, env: InstallEnv): string[] {
  const system = geminiSystemPaths(env);
  const user = settingsPath('gemini', { kind: 'user' }, env);
  const own = scope.kind === 'user' ? [user] : [settingsPath('gemini', scope, env), user];
  return [system.settings, ...own, system.defaults];
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

/** A path as Gemini CLI compares trusted folders: its real path when it exists, else as given, absolute. */
function realPath(path: string): string {
  try {
    return existsSync(path) ? realpathSync(path) : resolve(path);
  } catch {
    return resolve(path);
  }
}

/** Whether `child` is `parent` or inside it. */
function isWithin(parent: string, child: string): boolean {
  const path = relative(parent, child);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
}

/**
 * What Gemini CLI's `trustedFolders.json` says of a folder, as Gemini CLI
 * reads it: the rule of the longest path that holds the folder
 * (`TRUST_PARENT` holds its path's parent), undefined when none does.
 */
function trustRuleOf(file: string, folder: string): unknown {
  let rules: unknown;
  try {
    const text = readTextFile(file);
    rules = text === null ? {} : parseAsAgent('gemini', text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(rules)) return undefined;
  const target = realPath(folder);
  let longest = -1;
  let found: unknown;
  for (const [path, level] of Object.entries(rules)) {
    const holder = level === 'TRUST_PARENT' ? dirname(path) : path;
    if (isWithin(realPath(holder), target) && path.length > longest) {
      longest = path.length;
      found = level;
    }
  }
  return found;
}

/**
 * For a project install, a failed check when Gemini CLI would not trust the
 * project folder: it then ignores the project's settings, Airlock's hooks
 * with them, and runs every call unasked. Gemini CLI 0.61 trusts a folder
 * when `GEMINI_CLI_TRUST_WORKSPACE=true`, when folder trust is off
 * (`security.folderTrust.enabled: false` in the user's settings), or when
 * its `trustedFolders.json` trusts it; an undecided folder is not trusted.
 * This shell's environment stands for the agent's.
 */
export function geminiFolderTrust(
  scope: InstallScope,
  env: InstallEnv & NodeJS.ProcessEnv,
): DoctorCheck | null {
  if (scope.kind !== 'project') return null;
  const check = 'gemini folder trust';
  const project = resolve(scope.dir);
  const fix = `trust ${project} in Gemini CLI (its trust prompt, or /permissions), set GEMINI_CLI_TRUST_WORKSPACE=true where it runs, or install with --user`;
  const ignored = `Gemini CLI ignores ${settingsPath('gemini', scope, env)}, and so runs none of Airlock's hooks`;
  if (env.GEMINI_RESTRICTED_MODE === 'true' || env.GEMINI_CLI_TRUST_WORKSPACE === 'false') {
    const setting =
      env.GEMINI_RESTRICTED_MODE === 'true'
        ? 'GEMINI_RESTRICTED_MODE=true'
        : 'GEMINI_CLI_TRUST_WORKSPACE=false';
    return { check, status: 'fail', detail: `${setting} is set: ${ignored}`, fix };
  }
  if (env.GEMINI_CLI_TRUST_WORKSPACE === 'true') {
    return { check, status: 'ok', detail: 'GEMINI_CLI_TRUST_WORKSPACE=true trusts the project' };
  }
  const user = settingsPath('gemini', { kind: 'user' }, env);
  let settings: unknown;
  try {
    const text = readTextFile(user);
    settings = text === null ? {} : parseAsAgent('gemini', text);
  } catch {
    settings = {};
  }
  const security = isJsonObject(settings) ? settings.security : undefined;
  const folderTrust = isJsonObject(security) ? security.folderTrust : undefined;
  if (isJsonObject(folderTrust) && folderTrust.enabled === false) {
    return { check, status: 'ok', detail: `${user} turns folder trust off` };
  }
  const file =
    env.GEMINI_CLI_TRUSTED_FOLDERS_PATH ??
    join(env.GEMINI_CLI_HOME ?? env.HOME ?? homedir(), '.gemini', 'trustedFolders.json');
  const rule = trustRuleOf(file, project);
  if (rule === 'TRUST_FOLDER' || rule === 'TRUST_PARENT') {
    return { check, status: 'ok', detail: `${file} trusts the project` };
  }
  const why =
    rule === 'DO_NOT_TRUST'
      ? `${file} does not trust ${project}`
      : `${project} is not trusted in ${file} (folder trust is on)`;
  return { check, status: 'fail', detail: `${why}: ${ignored}`, fix };
}
