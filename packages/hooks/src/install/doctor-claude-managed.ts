import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorCheck } from './doctor-types.js';
import { isJsonObject } from './json-settings.js';

/**
 * Where Claude Code reads what an administrator sets: `managed-settings.json`
 * and the files of `managed-settings.d/`, which outrank every user and
 * project setting, Airlock's hooks included.
 */
export function claudeManagedDir(platform: NodeJS.Platform = process.platform): string {
  return platform === 'darwin' ? '/Library/Application Support/ClaudeCode' : '/etc/claude-code';
}

const CHECK = 'claude-code admin settings';

/** The managed settings files of `dir`, the main one first; a file that is not there is left out. */
function managedFiles(dir: string): string[] {
  let dropIns: string[] = [];
  try {
    dropIns = readdirSync(join(dir, 'managed-settings.d'))
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => join(dir, 'managed-settings.d', name));
  } catch {
    // No drop-in folder: only the main file.
  }
  return [join(dir, 'managed-settings.json'), ...dropIns];
}

/**
 * What one managed settings file does to Airlock's hooks: `disableAllHooks`
 * runs none, `allowManagedHooksOnly` runs only the administrator's (with
 * Claude Code 2.1 each lets every call run without asking Airlock). Managed
 * hooks that name Airlock's client are warned about: doctor does not check
 * entries it did not write.
 */
export function claudeManagedFileChecks(path: string, settings: unknown): DoctorCheck[] {
  if (!isJsonObject(settings)) return [];
  if (settings.disableAllHooks === true) {
    return [
      {
        check: CHECK,
        status: 'fail',
        detail: `${path} sets "disableAllHooks": true, which no user or project setting can undo: Claude Code runs no hook, so no call reaches Airlock`,
        fix: `ask the administrator who manages ${path} to allow hooks`,
      },
    ];
  }
  if (settings.allowManagedHooksOnly !== true) return [];
  if (JSON.stringify(settings.hooks ?? null).includes('airlock-hook')) {
    return [
      {
        check: CHECK,
        status: 'warn',
        detail: `${path} sets "allowManagedHooksOnly": true, and its hooks name airlock-hook: Claude Code skips the hooks of the user's and projects' settings, so doctor's checks of them say nothing of the managed ones`,
        fix: `check the managed hooks in ${path} against what airlock hooks install writes`,
      },
    ];
  }
  return [
    {
      check: CHECK,
      status: 'fail',
      detail: `${path} sets "allowManagedHooksOnly": true: Claude Code skips Airlock's hooks in the user's and projects' settings and runs every call without asking Airlock`,
      fix: `ask the administrator who manages ${path} to add Airlock's hook entries to its hooks, or to lift allowManagedHooksOnly`,
    },
  ];
}

/**
 * Reads Claude Code's managed settings in `dir` (default
 * {@link claudeManagedDir}) and says what in them keeps Airlock's hooks
 * from running. A file it cannot read or parse is warned about, since a
 * setting there may turn them off; settings an MDM profile or a server
 * delivers are no file doctor reads.
 */
export function claudeManagedChecks(dir: string = claudeManagedDir()): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  let found = 0;
  for (const path of managedFiles(dir)) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      checks.push(unreadable(path, (error as NodeJS.ErrnoException).code ?? 'unreadable'));
      continue;
    }
    found += 1;
    let settings: unknown;
    try {
      settings = JSON.parse(text);
    } catch {
      checks.push(unreadable(path, 'not JSON'));
      continue;
    }
    checks.push(...claudeManagedFileChecks(path, settings));
  }
  if (checks.length === 0) {
    checks.push({
      check: CHECK,
      status: 'ok',
      detail:
        found === 0
          ? `no managed settings in ${dir}`
          : `the managed settings in ${dir} leave Airlock's hooks on`,
    });
  }
  return checks;
}

function unreadable(path: string, why: string): DoctorCheck {
  return {
    check: CHECK,
    status: 'warn',
    detail: `could not read ${path} (${why}): an administrator's setting there may turn Airlock's hooks off`,
    fix: `let this user read ${path}, or ask its administrator whether it turns Claude Code hooks off`,
  };
}
