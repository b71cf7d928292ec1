import { spawnSync } from 'node:child_process';
import { CLI_NODE_ARGS } from './cli-entry.js';
import { type Deployment, waitFor } from './harness.js';
import { type CliOutcome, runToEnd } from './kernel-process.js';
import { type Backend, backends } from './stores.js';

/** The kernel an operator command talks to, and the member credential it uses by default. */
export interface OperatorTarget {
  url: string;
  workspaceId: string;
  tokens: { member: string };
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
export function runOperatorCli(
  target: OperatorTarget,
  args: string[],
  options: { token?: string } = {},
): Promise<CliOutcome> {
  return runToEnd(process.execPath, [...CLI_NODE_ARGS, ...args], {
    env: operatorCliEnv(target, options.token),
  });
}

/** Adds member credentials with these labels to a deployment; their ids and tokens, in order. */
export async function addMembers(
  d: Deployment,
  labels: string[],
): Promise<{ id: string; token: string }[]> {
  const members: { id: string; token: string }[] = [];
  for (const label of labels) {
    const made = await d.member.post(`${d.ws}/credentials`, {
      kind: 'member',
      agent_application_id: null,
      label,
    });
    members.push({ id: made.body.credential_id, token: made.body.token });
  }
  return members;
}

/** Waits until `count` decisions wait in the deployment's workspace. */
export async function waitForDecisions(d: Deployment, count: number): Promise<void> {
  await waitFor(
    async () => (await d.member.get(`${d.ws}/decisions`)).body.decisions.length === count,
    { what: `${count} waiting decision(s)` },
  );
}

/**
 * Starts an `ask` run driven from outside (a gateway client) and plants
 * these calls in it, as an agent would; answers the run's id.
 */
export async function plantCalls(
  d: Deployment,
  calls: { name: string; input: unknown; id: string }[],
): Promise<string> {
  const created = await d.member.post(`${d.ws}/runs`, {
    approval_mode: 'ask',
    input: 'planted calls',
    provider: { kind: 'gateway', client: 'operator CLI test' },
  });
  if (created.status !== 201) throw new Error(`the run was not created: ${created.status}`);
  const planted = await d.member.post(`${d.ws}/runs/${created.body.id}/calls`, { calls });
  if (planted.status !== 201) throw new Error(`the calls were not planted: ${planted.status}`);
  return created.body.id;
}

/** prlimit (util-linux) caps the file size a command may write; null when it can run here. */
export const prlimitSkipReason: string | null = spawnSync('prlimit', ['--version']).error
  ? 'prlimit (util-linux) is not installed'
  : null;

/**
 * Runs the real `airlock` on a local store to its end, with AIRLOCK_DATA_DIR
 * and DATABASE_URL set but empty: as another user (`user`), in `cwd`, and
 * with the files it writes capped at `maxFileBytes` (prlimit), as on a full
 * disk (its stdout and stderr are pipes, which the cap leaves alone).
 */
export function runLocalCli(
  args: string[],
  options: { maxFileBytes?: number; cwd?: string; user?: { uid: number; gid: number } } = {},
): Promise<CliOutcome> {
  const command =
    options.maxFileBytes === undefined
      ? [process.execPath, ...CLI_NODE_ARGS, ...args]
      : ['prlimit', `--fsize=${options.maxFileBytes}`, process.execPath, ...CLI_NODE_ARGS, ...args];
  return runToEnd(command[0] as string, command.slice(1), {
    env: { ...process.env, DATABASE_URL: '', AIRLOCK_DATA_DIR: '' },
    ...(options.user ?? {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
}
