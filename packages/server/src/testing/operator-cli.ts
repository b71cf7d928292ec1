import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Backend, backends } from './stores.js';

const execute = promisify(execFile);

/**
 * The built CLI (`pnpm test` builds first; after an edit, `pnpm run build`):
 * starting it costs no TypeScript transform, seconds per command on a busy machine.
 */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** The kernel an operator command talks to, and the member credential it uses by default. */
export interface OperatorTarget {
  url: string;
  workspaceId: string;
  tokens: { member: string };
}

/** What one run of the CLI gave: its exit code and what it printed. */
export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** The SQLite backend the operator CLI tests deploy on. */
export async function sqliteBackend(): Promise<Backend> {
  const sqlite = (await backends()).find((backend) => backend.name === 'sqlite');
  if (!sqlite) throw new Error('the SQLite backend is always available');
  return sqlite;
}

/** The environment that connects the CLI to `target` (AIRLOCK_URL, AIRLOCK_TOKEN, AIRLOCK_WORKSPACE). */
export function operatorCliEnv(target: OperatorTarget, token?: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    AIRLOCK_URL: target.url,
    AIRLOCK_TOKEN: token ?? target.tokens.member,
    AIRLOCK_WORKSPACE: target.workspaceId,
  };
}

/**
 * Runs the real `airlock` CLI in a child process against a running kernel,
 * connected through the environment (AIRLOCK_URL, AIRLOCK_TOKEN,
 * AIRLOCK_WORKSPACE); `token` replaces the member credential.
 */
export async function runOperatorCli(
  target: OperatorTarget,
  args: string[],
  options: { token?: string } = {},
): Promise<CliOutcome> {
  const env = operatorCliEnv(target, options.token);
  try {
    const { stdout, stderr } = await execute(process.execPath, [BUILT_CLI, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
