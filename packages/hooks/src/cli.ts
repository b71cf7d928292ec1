import { HOOKED_AGENTS, type HookedAgent } from '@airlock/core';
import {
  forTerminal,
  isSettingError,
  mayBeSecret,
  readKernelUrl,
  shownWord,
  unknownCommandLine,
} from '@airlock/core/command-line';
import { type ParsedArgs, parseArgs, UsageError } from './cli-args.js';
import { waitMsProblem } from './client/wait-limits.js';
import { type DoctorCheck, doctor } from './install/doctor.js';
import { type InstallOptions, installHooks, uninstallHooks } from './install/install.js';
import { type InstallScope, isExistingDirectory } from './install/targets.js';

const USAGE = `Usage:
  airlock hooks install claude-code|codex|gemini [--project [DIR] | --user] [--url URL]
                [--token TOKEN | --token-file FILE] [--wait-ms N] [--client node|sh|bash] [--config FILE]
                [--defer] [--http]   (claude-code only)
  airlock hooks uninstall claude-code|codex|gemini [--project [DIR] | --user]
  airlock hooks doctor [claude-code|codex|gemini] [--project [DIR] | --user] [--config FILE] [--json]
`;

const SCOPE = ['--user'];
const VERBS: readonly string[] = ['install', 'uninstall', 'doctor'];
const FLAGS = {
  install: {
    values: ['--url', '--token', '--token-file', '--wait-ms', '--client', '--config'],
    switches: [...SCOPE, '--defer', '--http'],
  },
  uninstall: { values: [], switches: SCOPE },
  doctor: { values: ['--config'], switches: [...SCOPE, '--json'] },
} as const;

/** The scope the words name; refuses both at once and a project folder that does not exist. */
function scopeOf(args: ParsedArgs): InstallScope {
  if (args.project === null) return { kind: 'user' };
  if (args.switches.has('--user')) throw new UsageError('give --user or --project, not both');
  const dir = args.project.dir ?? process.cwd();
  if (!isExistingDirectory(dir))
    throw new UsageError(`--project ${forTerminal(dir)}: no such directory`);
  return { kind: 'project', dir };
}

/** The word given where an agent goes, said back unless it may be a secret (see shownWord). */
function notTheAgent(name: string): string {
  return mayBeSecret(name) ? shownWord(name) : `(not ${shownWord(name)})`;
}

function agentOf(name: string | undefined): HookedAgent {
  if (name && (HOOKED_AGENTS as readonly string[]).includes(name)) return name as HookedAgent;
  throw new UsageError(
    `name an agent: ${HOOKED_AGENTS.join(', ')}${name ? ` ${notTheAgent(name)}` : ''}`,
  );
}

/** The one agent a verb names (none more). */
function oneAgent(args: ParsedArgs, optional: boolean): HookedAgent | null {
  const [name, extra] = args.positionals;
  if (extra !== undefined) throw new UsageError(`unexpected argument ${shownWord(extra)}`);
  return optional && name === undefined ? null : agentOf(name);
}

function print(checks: DoctorCheck[]): void {
  for (const check of checks) {
    const mark = check.status === 'ok' ? 'ok  ' : check.status === 'warn' ? 'warn' : 'FAIL';
    process.stdout.write(`${mark} ${check.check}: ${check.detail}\n`);
    if (check.fix && check.status !== 'ok') process.stdout.write(`     fix: ${check.fix}\n`);
  }
}

/**
 * Refuses a `--url` that is not an http:// or https:// URL (`localhost:4820`):
 * written as is, it would refuse every call the hooks ask about.
 */
function kernelUrlOf(url: string): void {
  try {
    readKernelUrl(url, {});
  } catch (error) {
    if (isSettingError(error)) throw new UsageError(error.message);
    throw error;
  }
}

function clientOf(value: string | undefined): InstallOptions['client'] {
  if (value === undefined || value === 'node' || value === 'sh' || value === 'bash') return value;
  throw new UsageError('--client takes node, sh or bash');
}

/** Reads `install`'s words, refusing contradictions before anything is read or written. */
function installOptions(rest: readonly string[]): InstallOptions {
  const args = parseArgs(rest, FLAGS.install);
  const agent = oneAgent(args, false) as HookedAgent;
  const waitMs = args.values.get('--wait-ms');
  if (waitMs !== undefined && !/^\d+$/.test(waitMs)) {
    throw new UsageError('--wait-ms takes milliseconds');
  }
  const waitProblem = waitMs === undefined ? null : waitMsProblem(Number(waitMs));
  if (waitProblem) throw new UsageError(waitProblem);
  const url = args.values.get('--url');
  if (url !== undefined) kernelUrlOf(url);
  const client = clientOf(args.values.get('--client'));
  const http = args.switches.has('--http');
  const defer = args.switches.has('--defer');
  if ((http || defer) && agent !== 'claude-code') {
    throw new UsageError(
      `${http ? '--http' : '--defer'} is for claude-code only: ${agent} has no such hooks`,
    );
  }
  if (http && client !== undefined && client !== 'node') {
    throw new UsageError('--http writes HTTP hooks, which run no client: drop --client or --http');
  }
  if (http && !args.values.has('--url'))
    throw new UsageError('--http needs the kernel URL (--url)');
  if (args.values.has('--token') && args.values.has('--token-file')) {
    throw new UsageError('give --token or --token-file, not both');
  }
  return {
    agent,
    client,
    scope: scopeOf(args),
    url: args.values.get('--url'),
    token: args.values.get('--token'),
    tokenFile: args.values.get('--token-file'),
    waitMs: waitMs === undefined ? undefined : Number(waitMs),
    defer,
    http,
    configPath: args.values.get('--config'),
  };
}

/**
 * `airlock hooks install|uninstall|doctor …` (the words after `hooks`).
 * Returns the exit code: 0, 1 when a command is refused or doctor finds a
 * failure, 2 on a usage error (an unknown or contradictory flag).
 */
export async function main(argv: readonly string[]): Promise<number> {
  const [verb, ...rest] = argv;
  try {
    if (
      (verb === 'install' || verb === 'uninstall' || verb === 'doctor') &&
      (rest.includes('--help') || rest.includes('-h'))
    ) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (verb === 'install') {
      const result = installHooks(installOptions(rest));
      for (const note of result.notes) process.stderr.write(`note: ${note}\n`);
      process.stdout.write(
        `${result.changed ? 'installed' : 'already installed'}: ${result.settingsPath}` +
          `${result.backupPath ? ` (backup ${result.backupPath})` : ''}; configuration ${result.configPath}\n`,
      );
      return 0;
    }
    if (verb === 'uninstall') {
      const args = parseArgs(rest, FLAGS.uninstall);
      const agent = oneAgent(args, false) as HookedAgent;
      const result = uninstallHooks({ agent, scope: scopeOf(args) });
      process.stdout.write(
        `removed ${result.removed} Airlock hook entr${result.removed === 1 ? 'y' : 'ies'} from ${result.settingsPath}` +
          `${result.outcome === 'restored' ? ' (the file as it was, from its backup)' : result.outcome === 'removed' ? ' (install had created it: deleted)' : ''}\n`,
      );
      return 0;
    }
    if (verb === 'doctor') {
      const args = parseArgs(rest, FLAGS.doctor);
      const agent = oneAgent(args, true);
      const checks = await doctor({
        agents: agent ? [agent] : [...HOOKED_AGENTS],
        scope: scopeOf(args),
        configPath: args.values.get('--config'),
      });
      if (args.switches.has('--json')) process.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
      else print(checks);
      return checks.some((check) => check.status === 'fail') ? 1 : 0;
    }
    if (verb === undefined || verb === '--help' || verb === '-h') {
      process.stdout.write(USAGE);
      return 0;
    }
    throw new UsageError(unknownCommandLine(verb));
  } catch (error) {
    // Named only when it is one of the verbs: any other word may be a token pasted in its place.
    const command = VERBS.includes(verb ?? '') ? `airlock hooks ${verb}` : 'airlock hooks';
    process.stderr.write(`${command}: ${(error as Error).message}\n`);
    if (error instanceof UsageError) process.stderr.write(USAGE);
    return error instanceof UsageError ? 2 : 1;
  }
}
