import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { HookedAgent } from '@airlock/core';
import { withoutCodexBlock } from './codex-toml.js';
import { fileError, readTextFile, refused, writeAll } from './file-writes.js';
import { withoutAirlock } from './json-settings.js';
import { withBreaksOf, withLfBreaks } from './line-endings.js';
import { parseSettings } from './settings-files.js';
import { backupPath, type InstallEnv, type InstallScope, settingsPath } from './targets.js';

/** What `uninstall` did. */
export interface UninstallResult {
  settingsPath: string;
  /** How many Airlock entries it removed (Codex: 1 for its block). */
  removed: number;
  /**
   * How the file was left: `restored` byte for byte from Airlock's backup,
   * `removed` (install had created it), or `rewritten` without Airlock's entries.
   */
  outcome?: 'restored' | 'removed' | 'rewritten' | undefined;
}

/** The settings without Airlock's entries: their text, what they mean, and how many entries went. */
function planUninstall(
  agent: HookedAgent,
  target: string,
  before: string,
): { text: string; meaning: unknown; removed: number } {
  if (agent === 'codex') {
    let taken: ReturnType<typeof withoutCodexBlock>;
    try {
      taken = withoutCodexBlock(before);
    } catch (error) {
      throw new Error(`${target}: ${(error as Error).message}`);
    }
    return { text: taken.text, meaning: codexMeaning(taken.text), removed: taken.removed ? 1 : 0 };
  }
  const { settings, removed } = withoutAirlock(parseSettings(target, before, agent));
  return { text: `${JSON.stringify(settings, null, 2)}\n`, meaning: settings, removed };
}

/** A config.toml as uninstall compares it: the blank lines at its end are not meaning. */
function codexMeaning(text: string): string {
  return text.replace(/\s+$/, '');
}

/** What the backup means, compared the way the current file is; undefined when it cannot be read. */
function backupMeaning(agent: HookedAgent, path: string, text: string): unknown {
  try {
    if (agent === 'codex') return codexMeaning(withoutCodexBlock(text).text);
    // As install wrote it: a value JSON cannot hold (1e400) became null there.
    return JSON.parse(JSON.stringify(withoutAirlock(parseSettings(path, text)).settings));
  } catch {
    return undefined;
  }
}

function isEmpty(agent: HookedAgent, meaning: unknown): boolean {
  return agent === 'codex' ? meaning === '' : isDeepStrictEqual(meaning, {});
}

/**
 * Removes Airlock's entries (and only them) from the agent's settings. When
 * what is left means what Airlock's backup held (the user changed nothing
 * since, or only Airlock did), the backup comes back byte for byte (numbers,
 * escapes, layout) and is removed; when install created the file and nothing
 * else is in it, the file goes; otherwise the settings are written without
 * Airlock's entries.
 * @throws Error (ending "nothing was changed") when the settings file cannot
 * be read as the agent's format or cannot be written.
 */
export function uninstallHooks(options: {
  agent: HookedAgent;
  scope: InstallScope;
  env?: (InstallEnv & NodeJS.ProcessEnv) | undefined;
}): UninstallResult {
  try {
    const target = settingsPath(options.agent, options.scope, options.env ?? process.env);
    const before = readTextFile(target);
    if (before === null) return { settingsPath: target, removed: 0 };
    const plan = planUninstall(options.agent, target, withLfBreaks(before));
    if (plan.removed === 0) return { settingsPath: target, removed: 0 };
    const backup = backupPath(target);
    const saved = existsSync(backup) ? readFileSync(backup) : null;
    if (
      saved !== null &&
      isDeepStrictEqual(
        backupMeaning(options.agent, backup, withLfBreaks(saved.toString('utf8'))),
        plan.meaning,
      )
    ) {
      writeAll([{ path: target, content: saved }]);
      unlinkSync(backup);
      return { settingsPath: target, removed: plan.removed, outcome: 'restored' };
    }
    if (saved === null && isEmpty(options.agent, plan.meaning)) {
      try {
        unlinkSync(target);
      } catch (error) {
        throw fileError(target, error);
      }
      return { settingsPath: target, removed: plan.removed, outcome: 'removed' };
    }
    writeAll([{ path: target, content: withBreaksOf(before, plan.text) }]);
    return { settingsPath: target, removed: plan.removed, outcome: 'rewritten' };
  } catch (error) {
    throw refused(error);
  }
}
