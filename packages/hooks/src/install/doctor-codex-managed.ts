import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hooksSwitchedOff } from './doctor-codex.js';
import type { DoctorCheck } from './doctor-types.js';
import { tomlKeyLines } from './toml-lines.js';

/**
 * Where Codex reads what an administrator sets on a Unix machine (Linux and
 * macOS): `requirements.toml`, enforced, and `managed_config.toml`, the
 * defaults every launch starts from. Both outrank the user's and the
 * project's config.toml, where Airlock's hooks are.
 */
export const CODEX_MANAGED_DIR = '/etc/codex';

const CHECK = 'codex admin settings';

/** A file's text, null when it does not exist, or the error that kept it from being read. */
function readIfThere(path: string): string | null | Error {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return error as Error;
  }
}

/** The top-level `allow_managed_hooks_only = true` line of a requirements.toml, or null. */
function managedHooksOnly(text: string): string | null {
  const found = tomlKeyLines(text.split('\n')).find(
    ({ table, line, set }) =>
      table === null &&
      (/^allow_managed_hooks_only\s*=\s*true\b/.test(line) ||
        (set?.key.length === 1 &&
          set.key[0] === 'allow_managed_hooks_only' &&
          /^true\b/.test(set.value))),
  );
  return found ? found.line : null;
}

/**
 * What an administrator's requirements.toml does to Airlock's hooks: one
 * that turns Codex hooks off (`[features] hooks = false`, or the older
 * `codex_hooks`) or keeps only its own managed hooks
 * (`allow_managed_hooks_only = true`) leaves every call to Codex alone,
 * unasked, since Airlock's hooks live in a config.toml Codex then skips.
 * Managed hooks that name Airlock's client are warned about: doctor does not
 * check entries it did not write.
 */
export function requirementsChecks(path: string, text: string): DoctorCheck[] {
  const off = hooksSwitchedOff(text);
  if (off) {
    return [
      {
        check: CHECK,
        status: 'fail',
        detail: `${path} turns Codex hooks off (${off}), which no config.toml can undo: Codex runs every call without asking Airlock`,
        fix: `ask the administrator who manages ${path} to allow Codex hooks`,
      },
    ];
  }
  const onlyManaged = managedHooksOnly(text);
  if (!onlyManaged) {
    return [{ check: CHECK, status: 'ok', detail: `${path} leaves Codex hooks on` }];
  }
  if (text.includes('airlock-hook')) {
    return [
      {
        check: CHECK,
        status: 'warn',
        detail: `${path} keeps only its own managed hooks (${onlyManaged}), and they name airlock-hook: Codex skips the hooks of config.toml, so doctor's checks of them say nothing of the managed ones`,
        fix: `check the managed hooks in ${path} against what airlock hooks install writes`,
      },
    ];
  }
  return [
    {
      check: CHECK,
      status: 'fail',
      detail: `${path} keeps only its own managed hooks (${onlyManaged}): Codex skips Airlock's hooks in config.toml and runs every call without asking Airlock`,
      fix: `ask the administrator who manages ${path} to add Airlock's hook entries to its managed hooks, or to lift allow_managed_hooks_only`,
    },
  ];
}

/**
 * What an administrator's managed_config.toml does to Airlock's hooks: its
 * `[features] hooks = false` is where every launch starts, above the
 * user's config.toml, so Codex starts with hooks off.
 */
export function managedConfigChecks(path: string, text: string): DoctorCheck[] {
  const off = hooksSwitchedOff(text);
  if (!off) return [];
  return [
    {
      check: CHECK,
      status: 'fail',
      detail: `${path} turns Codex hooks off (${off}) for every launch: Codex runs every call without asking Airlock`,
      fix: `ask the administrator who manages ${path} to remove that line`,
    },
  ];
}

/**
 * Reads Codex's admin files in `dir` (default {@link CODEX_MANAGED_DIR}) and
 * says what in them keeps Airlock's hooks from running. Settings an
 * administrator ships through MDM or ChatGPT's cloud requirements are not
 * files doctor can read; it says so when it finds no file.
 */
export function codexManagedChecks(dir: string = CODEX_MANAGED_DIR): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const unread = (path: string, error: Error): DoctorCheck => ({
    check: CHECK,
    status: 'warn',
    detail: `could not read ${path} (${(error as NodeJS.ErrnoException).code ?? error.message}): an administrator's setting there may turn Airlock's hooks off`,
    fix: `let this user read ${path}, or ask its administrator whether it turns Codex hooks off`,
  });
  const requirementsPath = join(dir, 'requirements.toml');
  const requirements = readIfThere(requirementsPath);
  if (requirements instanceof Error) checks.push(unread(requirementsPath, requirements));
  else if (requirements !== null)
    checks.push(...requirementsChecks(requirementsPath, requirements));
  const managedPath = join(dir, 'managed_config.toml');
  const managed = readIfThere(managedPath);
  if (managed instanceof Error) checks.push(unread(managedPath, managed));
  else if (managed !== null) checks.push(...managedConfigChecks(managedPath, managed));
  if (requirements === null && managed === null) {
    checks.push({
      check: CHECK,
      status: 'ok',
      detail: `no ${requirementsPath} or ${managedPath} (requirements sent by MDM or ChatGPT's cloud are not read)`,
    });
  }
  return checks;
}
