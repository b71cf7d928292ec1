import { COMMANDS } from '../cli/commands.js';
import { describeFailure } from '../cli/operator/connection.js';
import type { CliOutcome } from './kernel-process.js';
import { type OperatorTarget, operatorCliEnv } from './operator-cli.js';

/**
 * cli.ts's commands this does not run: `serve` keeps a kernel running past its return; `hooks`
 * and `fence` have not been checked in process (their tests spawn the CLI).
 */
const NEEDS_A_PROCESS = new Set(['serve', 'hooks', 'fence']);

type Write = typeof process.stdout.write;

/** A stream's write that appends to `sink` instead, calling back as a write that left does. */
function capturing(sink: { text: string }): Write {
  return ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
    sink.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => done());
    return true;
  }) as Write;
}

let busy = false;

/**
 * Runs an `airlock` command (`['runs', 'list', ...]`) in this process, as cli.ts runs it in its
 * own: its exit code, or a failure it throws told as cli.ts tells it (describeFailure, one
 * `airlock: ` prefix), with what it wrote to stdout and stderr, `env` standing for process.env
 * and `cwd` (when given) for the working directory meanwhile. It borrows process.env, the working
 * directory and the standard streams, so one runs at a time (it throws if another is running).
 * process.argv stays the test's, so a line naming how to run the CLI again (selfCommand) differs.
 * What only a process shows (its exit once the output is written, a pipe closed early, a
 * signal) needs the spawned CLI.
 */
export async function runInProcess(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): Promise<CliOutcome> {
  if (busy) throw new Error('runInProcess: one command at a time');
  const [word, ...rest] = args;
  const load =
    word === undefined || NEEDS_A_PROCESS.has(word) || !Object.hasOwn(COMMANDS, word)
      ? undefined
      : COMMANDS[word];
  if (!load) throw new Error(`runInProcess does not run airlock ${word}`);
  const command = await load();
  busy = true;
  const stdout = { text: '' };
  const stderr = { text: '' };
  const saved = {
    env: process.env,
    cwd: process.cwd(),
    out: process.stdout.write,
    err: process.stderr.write,
  };
  process.env = options.env;
  if (options.cwd !== undefined) process.chdir(options.cwd);
  process.stdout.write = capturing(stdout);
  process.stderr.write = capturing(stderr);
  let code: number;
  try {
    code = await command(rest);
  } catch (error) {
    const { message, exitCode } = await describeFailure(error);
    stderr.text += `${message.startsWith('airlock ') ? message : `airlock: ${message}`}\n`;
    code = exitCode;
  } finally {
    process.env = saved.env;
    process.chdir(saved.cwd);
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    busy = false;
  }
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/**
 * {@link runInProcess} of an operator command against `target`, with the environment
 * {@link runOperatorCli} gives the child (or `env`).
 */
export function runOperatorInProcess(
  target: OperatorTarget,
  args: string[],
  options: { token?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliOutcome> {
  return runInProcess(args, { env: options.env ?? operatorCliEnv(target, options.token) });
}

/**
 * {@link runInProcess} of a command on a local store, in `cwd` when given, with the environment
 * {@link runLocalCli} gives the child: AIRLOCK_DATA_DIR and DATABASE_URL set but empty.
 */
export function runLocalInProcess(
  args: string[],
  options: { cwd?: string } = {},
): Promise<CliOutcome> {
  return runInProcess(args, {
    env: { ...process.env, DATABASE_URL: '', AIRLOCK_DATA_DIR: '' },
    ...options,
  });
}
