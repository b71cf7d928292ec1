import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { HookedAgent } from '@airlock/core';

/** Where hooks are installed: the user's own settings, or a project's. */
export type InstallScope = { kind: 'user' } | { kind: 'project'; dir: string };

/** The environment the settings paths are read from (tests pass their own). */
export interface InstallEnv {
  HOME?: string | undefined;
  CODEX_HOME?: string | undefined;
  /** Where Gemini CLI reads its administrator's settings and defaults, when not the platform's files. */
  GEMINI_CLI_SYSTEM_SETTINGS_PATH?: string | undefined;
  GEMINI_CLI_SYSTEM_DEFAULTS_PATH?: string | undefined;
}

/**
 * The file an agent reads its hooks from: Claude Code's and Gemini CLI's
 * `settings.json`, Codex's `config.toml`.
 */
export function settingsPath(
  agent: HookedAgent,
  scope: InstallScope,
  env: InstallEnv = process.env,
): string {
  const home = env.HOME ?? homedir();
  if (scope.kind === 'project') {
    const dir = resolve(scope.dir);
    if (agent === 'codex') return join(dir, '.codex', 'config.toml');
    return join(dir, agent === 'gemini' ? '.gemini' : '.claude', 'settings.json');
  }
  if (agent === 'codex') return join(env.CODEX_HOME ?? join(home, '.codex'), 'config.toml');
  return join(home, agent === 'gemini' ? '.gemini' : '.claude', 'settings.json');
}

/** Whether a project folder exists (a typo must not make install create a tree). */
export function isExistingDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The backup of a settings file, written before Airlock first changes it. */
export function backupPath(settings: string): string {
  return `${settings}.airlock-backup`;
}
