import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HookedAgent } from '@airlock/core';
import { defaultConfigPath } from '../client/config.js';
import { codexConfigProblem, withCodexBlock, withoutCodexBlock } from './codex-toml.js';
import { waitMsProblem } from './entries.js';
import { hooksShapeProblem, withAirlock, withoutAirlock } from './json-settings.js';
import { type ShellClient, shellHookPath, writeShellClientConfig } from './shell-client.js';
import { backupPath, type InstallEnv, type InstallScope, settingsPath } from './targets.js';

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
}

function quote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The command every hook entry runs. */
export function hookCommand(options: InstallOptions, configPath: string): string {
  const parts = [
    options.node ?? process.execPath,
    options.hookEntry ?? hookEntryPath(),
    options.agent,
    '--config',
    configPath,
  ].map(quote);
  if (options.waitMs !== undefined) parts.push('--wait-ms', String(options.waitMs));
  if (options.defer) parts.push('--defer');
  return parts.join(' ');
}

function readText(path: string): string | null {
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}

/**
 * Parses a JSON settings file, refusing to touch one it cannot read.
 * @throws Error naming the file when it is not a JSON object.
 */
function parseSettings(path: string, text: string | null): Record<string, unknown> {
  if (text === null || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${path} is not valid JSON (${(error as Error).message}); fix it first, nothing was changed`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${path} is not a JSON object; nothing was changed`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * Parses settings Airlock can merge its entries into.
 * @throws Error naming the file and the key whose shape Airlock cannot merge with.
 */
function mergeableSettings(path: string, text: string | null): Record<string, unknown> {
  const settings = parseSettings(path, text);
  const problem = hooksShapeProblem(settings);
  if (problem) {
    throw new Error(
      `${path}: ${problem}, so Airlock cannot add its hooks beside it; fix it first, nothing was changed`,
    );
  }
  return settings;
}

/**
 * A config.toml text Airlock can add its block to.
 * @throws Error naming the file and the line when it declares hooks of its own or its block is damaged.
 */
function mergeableCodexConfig(path: string, text: string | null): string {
  const problem = codexConfigProblem(text ?? '');
  if (problem) {
    throw new Error(`${path}: ${problem}; nothing was changed`);
  }
  return text ?? '';
}

function writeConfig(options: InstallOptions, path: string): void {
  if (options.url === undefined && options.token === undefined && options.tokenFile === undefined) {
    return;
  }
  const previous = existsSync(path)
    ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)
    : {};
  const next: Record<string, unknown> = { ...previous };
  if (options.url !== undefined) next.url = options.url;
  if (options.token !== undefined) {
    next.token = options.token;
    delete next.token_file;
  }
  if (options.tokenFile !== undefined) {
    next.token_file = options.tokenFile;
    delete next.token;
  }
  if (options.waitMs !== undefined) next.wait_ms = options.waitMs;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

function httpOf(
  options: InstallOptions,
): { url: string; waitMs?: number | undefined; defer?: boolean | undefined } | undefined {
  if (!options.http) return undefined;
  if (options.agent !== 'claude-code') {
    throw new Error(`${options.agent} has no HTTP hooks; install without --http`);
  }
  if (!options.url) throw new Error('--http needs the kernel URL (--url)');
  return { url: options.url, waitMs: options.waitMs, defer: options.defer };
}

/**
 * Writes Airlock's hooks into the agent's own settings, merged with the
 * hooks already there: idempotent (a second run changes nothing), with a
 * backup of the file as it was before Airlock first changed it. The kernel
 * URL and credential go to the hooks' own configuration file (mode 0600).
 * @throws Error when the settings file cannot be read as the agent's format,
 * or when `waitMs` would outlast the hook timeout it writes (see `waitMsProblem`).
 */
export function installHooks(options: InstallOptions): InstallResult {
  const waitProblem = options.waitMs === undefined ? null : waitMsProblem(options.waitMs);
  if (waitProblem) throw new Error(`${waitProblem}; nothing was changed`);
  const env = options.env ?? process.env;
  const target = settingsPath(options.agent, options.scope, env);
  const configPath = options.configPath ?? defaultConfigPath(env);
  writeConfig(options, configPath);
  const command =
    options.client === 'sh' || options.client === 'bash'
      ? [
          options.client,
          shellHookPath(options.client),
          writeShellClientConfig({
            agent: options.agent,
            configPath,
            waitMs: options.waitMs,
            defer: options.defer,
            env,
          }),
        ]
          .map(quote)
          .join(' ')
      : hookCommand(options, configPath);
  const commands = { each: command, turnEnd: hookCommand(options, configPath) };
  const before = readText(target);
  const after =
    options.agent === 'codex'
      ? withCodexBlock(mergeableCodexConfig(target, before), commands)
      : `${JSON.stringify(withAirlock(options.agent, mergeableSettings(target, before), commands, httpOf(options)), null, 2)}\n`;
  const backup = backupPath(target);
  if (after === before) {
    return {
      settingsPath: target,
      backupPath: existsSync(backup) ? backup : null,
      changed: false,
      configPath,
      command,
      turnEndCommand: commands.turnEnd,
    };
  }
  mkdirSync(dirname(target), { recursive: true });
  if (before !== null && !existsSync(backup)) copyFileSync(target, backup);
  writeFileSync(target, after);
  return {
    settingsPath: target,
    backupPath: before !== null ? backup : null,
    changed: true,
    configPath,
    command,
    turnEndCommand: commands.turnEnd,
  };
}

/** What `uninstall` did. */
export interface UninstallResult {
  settingsPath: string;
  /** How many Airlock entries it removed (Codex: 1 for its block). */
  removed: number;
}

/**
 * Removes Airlock's entries (and only them) from the agent's settings.
 * @throws Error when the settings file cannot be read as the agent's format.
 */
export function uninstallHooks(options: {
  agent: HookedAgent;
  scope: InstallScope;
  env?: (InstallEnv & NodeJS.ProcessEnv) | undefined;
}): UninstallResult {
  const target = settingsPath(options.agent, options.scope, options.env ?? process.env);
  const before = readText(target);
  if (before === null) return { settingsPath: target, removed: 0 };
  if (options.agent === 'codex') {
    let taken: ReturnType<typeof withoutCodexBlock>;
    try {
      taken = withoutCodexBlock(before);
    } catch (error) {
      throw new Error(`${target}: ${(error as Error).message}; nothing was changed`);
    }
    const { text, removed } = taken;
    if (removed) writeFileSync(target, text);
    return { settingsPath: target, removed: removed ? 1 : 0 };
  }
  const { settings, removed } = withoutAirlock(parseSettings(target, before));
  if (removed > 0) writeFileSync(target, `${JSON.stringify(settings, null, 2)}\n`);
  return { settingsPath: target, removed };
}
