import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HookedAgent } from '@airlock/core';
import { shellQuoted } from '@airlock/core/command-line';
import { defaultConfigPath } from '../client/config.js';
import { waitMsProblem } from '../client/wait-limits.js';
import { BEGIN_MARK, withCodexBlock } from './codex-toml.js';
import { type PlannedWrite, readTextFile, refused, writeAll } from './file-writes.js';
import { planHookConfig, readTokenFile, resolveKernel } from './hooks-config.js';
import { withAirlock, withoutAirlock } from './json-settings.js';
import { withBreaksOf, withLfBreaks } from './line-endings.js';
import { mergeableCodexConfig, mergeableSettings } from './settings-files.js';
import { type ShellClient, shellClientConfig, shellHookPath } from './shell-client.js';
import {
  backupPath,
  type InstallEnv,
  type InstallScope,
  isExistingDirectory,
  settingsPath,
} from './targets.js';

/** The hook entry's compiled file (the source tree's entry is TypeScript, so tests use the build). */
export function hookEntryPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = join(here, '..', 'bin', 'airlock-hook.js');
  return existsSync(built) ? built : join(here, '..', '..', 'dist', 'bin', 'airlock-hook.js');
}

/** What `install` needs. */
export interface InstallOptions {
  agent: HookedAgent;
  scope: InstallScope;
  /** The kernel's URL and the agent credential (or a file holding it) the hooks present. */
  url?: string | undefined;
  token?: string | undefined;
  tokenFile?: string | undefined;
  /** How long a call waits for a person inside one hook. */
  waitMs?: number | undefined;
  /** Claude Code headless: parks answer `defer`. */
  defer?: boolean | undefined;
  /**
   * Claude Code only: HTTP hooks to the kernel itself (no process per call);
   * the agent's environment must carry the agent credential as `AIRLOCK_TOKEN`.
   */
  http?: boolean | undefined;
  /** The hooks' configuration file (default `~/.airlock/hooks.json`). */
  configPath?: string | undefined;
  /**
   * Which hook client the entries run: `node` (default, the `airlock-hook`
   * entry), `sh` (`airlock-hook.sh`: a shell and curl, no Node.js process
   * per event; the kernel answers in the agent's format) or `bash`
   * (`airlock-hook.bash`: bash alone, HTTP over `/dev/tcp`, no curl either).
   */
  client?: 'node' | ShellClient | undefined;
  /** The Node.js binary and the hook entry the command runs (default: this process's, this package's). */
  node?: string | undefined;
  hookEntry?: string | undefined;
  env?: (InstallEnv & NodeJS.ProcessEnv) | undefined;
}

/** What `install` did. */
export interface InstallResult {
  settingsPath: string;
  /** The copy of the settings as they were before Airlock first changed them, or null when there were none. */
  backupPath: string | null;
  changed: boolean;
  configPath: string;
  /** What every entry runs but the turn's end's (the client `client` chose). */
  command: string;
  /** What the entry of the turn's end runs: the Node.js client (see `HookEntry.turnEnd`). */
  turnEndCommand: string;
  /** What the user should know: this install changed what other agents' entries use. */
  notes: string[];
}

/** The command every hook entry runs. */
export function hookCommand(options: InstallOptions, configPath: string): string {
  const parts = [
    options.node ?? process.execPath,
    options.hookEntry ?? hookEntryPath(),
    options.agent,
    '--config',
    configPath,
  ].map(shellQuoted);
  if (options.waitMs !== undefined) parts.push('--wait-ms', String(options.waitMs));
  if (options.defer) parts.push('--defer');
  return parts.join(' ');
}

function httpOf(
  options: InstallOptions,
): { url: string; waitMs?: number | undefined; defer?: boolean | undefined } | undefined {
  if (!options.http) return undefined;
  if (options.agent !== 'claude-code') {
    throw new Error(`${options.agent} has no HTTP hooks; install without --http`);
  }
  if (!options.url) throw new Error('--http needs the kernel URL (--url)');
  if (options.client === 'sh' || options.client === 'bash') {
    throw new Error('HTTP hooks run no client: install with --http or with --client, not both');
  }
  return { url: options.url, waitMs: options.waitMs, defer: options.defer };
}

/** Refuses a project folder that does not exist (a typo must not create a tree). */
function checkScope(scope: InstallScope): void {
  if (scope.kind === 'project' && !isExistingDirectory(scope.dir)) {
    throw new Error(`the project directory ${scope.dir} does not exist`);
  }
}

/** Everything `install` will write, worked out (and checked) before anything is written. */
function planInstall(options: InstallOptions): { result: InstallResult; writes: PlannedWrite[] } {
  const waitProblem = options.waitMs === undefined ? null : waitMsProblem(options.waitMs);
  if (waitProblem) throw new Error(waitProblem);
  const http = httpOf(options);
  checkScope(options.scope);
  const env = options.env ?? process.env;
  const target = settingsPath(options.agent, options.scope, env);
  // The agent runs its hooks in its own working directory, not install's: the files they read are named whole.
  const configPath = resolve(options.configPath ?? defaultConfigPath(env));
  const tokenFile = options.tokenFile === undefined ? undefined : resolve(options.tokenFile);
  const config = planHookConfig(configPath, { ...options, tokenFile });
  if (tokenFile !== undefined) readTokenFile(tokenFile);
  const client = options.client === 'sh' || options.client === 'bash' ? options.client : null;
  const shell = client
    ? shellClientConfig({
        agent: options.agent,
        configPath,
        kernel: resolveKernel(config.stored, configPath, env),
        waitMs: options.waitMs,
        defer: options.defer,
      })
    : null;
  const command =
    client && shell
      ? [client, shellHookPath(client), shell.path].map(shellQuoted).join(' ')
      : hookCommand(options, configPath);
  const commands = { each: command, turnEnd: hookCommand(options, configPath) };
  const before = readTextFile(target);
  const read = before === null ? null : withLfBreaks(before);
  let written: string;
  let installedBefore: boolean;
  if (options.agent === 'codex') {
    written = withCodexBlock(mergeableCodexConfig(target, read), commands);
    installedBefore = (read ?? '').includes(BEGIN_MARK);
  } else {
    const settings = mergeableSettings(target, read, options.agent);
    written = `${JSON.stringify(withAirlock(options.agent, settings, commands, http), null, 2)}\n`;
    installedBefore = withoutAirlock(settings).removed > 0;
  }
  const after = withBreaksOf(before, written);
  const writes: PlannedWrite[] = [];
  if (config.text !== null) {
    writes.push({ path: configPath, content: config.text, mode: 0o600, dirMode: 0o700 });
  }
  if (shell) writes.push({ path: shell.path, content: shell.text, mode: 0o600, dirMode: 0o700 });
  const backup = backupPath(target);
  const changed = after !== before;
  // A backup is of the file as it was before Airlock's entries: one kept from an earlier
  // install, before an uninstall and the user's own edits, is no longer that file.
  if (changed && before !== null && (!existsSync(backup) || !installedBefore)) {
    writes.push({
      path: backup,
      content: readFileSync(target),
      mode: statSync(target).mode & 0o777,
    });
  }
  if (changed) writes.push({ path: target, content: after });
  return {
    writes,
    result: {
      settingsPath: target,
      backupPath: before !== null || existsSync(backup) ? backup : null,
      changed,
      configPath,
      command,
      turnEndCommand: commands.turnEnd,
      notes: config.repointed
        ? [
            `${configPath} changed (${config.repointed}): the entries of every agent installed with the Node.js client, and every agent's turn-end entry, use it from now on`,
          ]
        : [],
    },
  };
}

/**
 * Writes Airlock's hooks into the agent's own settings, merged with the
 * hooks already there: idempotent (a second run changes nothing), with a
 * backup of the file as it was before Airlock first changed it. The kernel
 * URL and credential go to the hooks' own configuration file (mode 0600).
 * Everything is checked before the first write, and the writes are all or
 * none: a refused install changes no file.
 * @throws Error (ending "nothing was changed") when the settings or the hooks'
 * configuration cannot be read as their format, a file cannot be written,
 * `waitMs` would outlast the hook timeout it writes (see `waitMsProblem`),
 * `http` is asked of an agent without HTTP hooks, or a project folder does not exist.
 */
export function installHooks(options: InstallOptions): InstallResult {
  try {
    const { result, writes } = planInstall(options);
    writeAll(writes);
    return result;
  } catch (error) {
    throw refused(error);
  }
}

export { type UninstallResult, uninstallHooks } from './uninstall.js';
