import { HOOKED_AGENTS, type HookedAgent } from '@airlock/core';
import { type DoctorCheck, doctor } from './install/doctor.js';
import { waitMsProblem } from './install/entries.js';
import { installHooks, uninstallHooks } from './install/install.js';
import type { InstallScope } from './install/targets.js';

const USAGE = `Usage:
  airlock hooks install claude-code|codex|gemini [--project [DIR] | --user] [--url URL]
                [--token TOKEN | --token-file FILE] [--wait-ms N] [--defer] [--http] [--client node|sh|bash] [--config FILE]
  airlock hooks uninstall claude-code|codex|gemini [--project [DIR] | --user]
  airlock hooks doctor [claude-code|codex|gemini] [--project [DIR] | --user] [--config FILE] [--json]
`;

/** A command-line mistake: the message and exit code 2. */
class UsageError extends Error {}

function value(argv: readonly string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  if (index < 0) return undefined;
  const next = argv[index + 1];
  if (next === undefined || next.startsWith('--')) throw new UsageError(`${name} needs a value`);
  return next;
}

function scopeOf(argv: readonly string[]): InstallScope {
  const index = argv.indexOf('--project');
  if (index >= 0) {
    const next = argv[index + 1];
    return { kind: 'project', dir: next && !next.startsWith('--') ? next : process.cwd() };
  }
  return { kind: 'user' };
}

function agentOf(name: string | undefined): HookedAgent {
  if (name && (HOOKED_AGENTS as readonly string[]).includes(name)) return name as HookedAgent;
  throw new UsageError(`name an agent: ${HOOKED_AGENTS.join(', ')}${name ? ` (not ${name})` : ''}`);
}

function print(checks: DoctorCheck[]): void {
  for (const check of checks) {
    const mark = check.status === 'ok' ? 'ok  ' : check.status === 'warn' ? 'warn' : 'FAIL';
    process.stdout.write(`${mark} ${check.check}: ${check.detail}\n`);
    if (check.fix && check.status !== 'ok') process.stdout.write(`     fix: ${check.fix}\n`);
  }
}

/**
 * `airlock hooks install|uninstall|doctor …` (the words after `hooks`).
 * Returns the exit code: 0, 1 when doctor finds a failure, 2 on a usage error.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const [verb, ...rest] = argv;
  try {
    if (verb === 'install') {
      const waitMs = value(rest, '--wait-ms');
      if (waitMs !== undefined && !/^\d+$/.test(waitMs))
        throw new UsageError('--wait-ms takes milliseconds');
      const waitProblem = waitMs === undefined ? null : waitMsProblem(Number(waitMs));
      if (waitProblem) throw new UsageError(waitProblem);
      const client = value(rest, '--client');
      if (client !== undefined && client !== 'node' && client !== 'sh' && client !== 'bash')
        throw new UsageError('--client takes node, sh or bash');
      const result = installHooks({
        agent: agentOf(rest[0]),
        client,
        scope: scopeOf(rest),
        url: value(rest, '--url'),
        token: value(rest, '--token'),
        tokenFile: value(rest, '--token-file'),
        waitMs: waitMs === undefined ? undefined : Number(waitMs),
        defer: rest.includes('--defer'),
        http: rest.includes('--http'),
        configPath: value(rest, '--config'),
      });
      process.stdout.write(
        `${result.changed ? 'installed' : 'already installed'}: ${result.settingsPath}` +
          `${result.backupPath ? ` (backup ${result.backupPath})` : ''}; configuration ${result.configPath}\n`,
      );
      return 0;
    }
    if (verb === 'uninstall') {
      const result = uninstallHooks({ agent: agentOf(rest[0]), scope: scopeOf(rest) });
      process.stdout.write(
        `removed ${result.removed} Airlock hook entr${result.removed === 1 ? 'y' : 'ies'} from ${result.settingsPath}\n`,
      );
      return 0;
    }
    if (verb === 'doctor') {
      const named = rest[0] && !rest[0].startsWith('--') ? [agentOf(rest[0])] : [...HOOKED_AGENTS];
      const checks = await doctor({
        agents: named,
        scope: scopeOf(rest),
        configPath: value(rest, '--config'),
      });
      if (rest.includes('--json')) process.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
      else print(checks);
      return checks.some((check) => check.status === 'fail') ? 1 : 0;
    }
    process.stdout.write(USAGE);
    return verb === undefined || verb === '--help' || verb === '-h' ? 0 : 2;
  } catch (error) {
    process.stderr.write(`airlock hooks ${verb}: ${(error as Error).message}\n`);
    if (error instanceof UsageError) process.stderr.write(USAGE);
    return error instanceof UsageError ? 2 : 1;
  }
}
