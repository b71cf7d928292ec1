import { type ChildProcess, type ExecFileOptions, execFile, spawn } from 'node:child_process';
import { CLI_NODE_ARGS } from './cli-entry.js';
import type { WorkspaceTokens } from './workspace-tokens.js';

/** A real `airlock serve` process, with what its start printed. */
export interface KernelProcess {
  child: ChildProcess;
  /** The kernel's own process id (not the wrapper's, when one runs it). */
  pid: number;
  url: string;
  workspaceId: string;
  /** True when this start created the workspace and printed its tokens. */
  firstStart: boolean;
  /**
   * The tokens a first start printed.
   * @throws Error when the store already had its workspace (a restart, or a
   * second process on one PostgreSQL database): they were printed then.
   */
  readonly tokens: WorkspaceTokens;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** SIGTERM to the kernel, then wait for the exit (of the wrapper too). */
  stop(): Promise<void>;
}

/** What to start: a SQLite data directory or a PostgreSQL database. */
export type KernelProcessOptions = ({ dataDir: string } | { databaseUrl: string }) & {
  /** More `airlock serve` arguments, e.g. `['--durability', 'relaxed']`. */
  args?: string[];
  /** A command that runs the kernel, e.g. `['strace', '-f', '-o', file]`. */
  wrapper?: string[];
  /** More environment variables for the kernel, e.g. `OPENAI_BASE_URL`. */
  env?: Record<string, string>;
};

function pick(text: string, pattern: RegExp): string {
  const found = pattern.exec(text);
  if (!found) throw new Error(`no ${pattern} in the kernel's output: ${text}`);
  return found[1]!;
}

/**
 * Starts `airlock serve` from the sources on a free loopback port (no demo,
 * rate limits off) and resolves once it printed its banner: the first
 * start's, with tokens, or a later start's, with its workspace alone.
 * @throws Error when the process exits first or takes over 60 s.
 */
export async function startKernelProcess(options: KernelProcessOptions): Promise<KernelProcess> {
  const store =
    'databaseUrl' in options
      ? ['--database-url', options.databaseUrl]
      : ['--data-dir', options.dataDir];
  const command = [
    process.execPath,
    ...CLI_NODE_ARGS,
    'serve',
    '--port',
    '0',
    ...store,
    '--no-demo',
    '--rate-limit',
    'off',
    ...(options.args ?? []),
  ];
  const all = [...(options.wrapper ?? []), ...command];
  const child = spawn(all[0]!, all.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: '', AIRLOCK_DURABILITY: '', ...options.env },
  });
  let output = '';
  // A first start's banner ends with its member token; a later start's says the tokens were shown.
  const bannerDone = /member token\s+\S+\n|\(tokens were shown when this store was created\)/;
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the kernel did not start: ${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('kernel listening') && bannerDone.test(output)) {
        clearTimeout(timer);
        done();
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the kernel exited (${code}) before it served: ${output}`));
    });
  });
  const pid = Number(pick(output, /"pid":(\d+)/));
  const firstStart = /member token\s+\S+/.test(output);
  const tokens = firstStart
    ? {
        agent: pick(output, /agent token\s+(\S+)/),
        executor: pick(output, /executor token\s+(\S+)/),
        member: pick(output, /member token\s+(\S+)/),
      }
    : null;
  return {
    child,
    pid,
    url: pick(output, /ready at (http:\/\/\S+)/),
    workspaceId: pick(output, /workspace\s+(\S+)/),
    firstStart,
    get tokens() {
      if (!tokens) throw new Error('this start printed no tokens: its store had its workspace');
      return tokens;
    },
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((settle) => child.once('exit', settle));
      // The kernel itself: a wrapper such as strace ends when it does.
      process.kill(pid, 'SIGTERM');
      await exited;
    },
  };
}

/** What a finished CLI command printed and its exit code. */
export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end and settles with its exit code (1 when it had
 * none, as when a signal ended it) and what it printed; never rejects.
 */
export function runToEnd(
  command: string,
  args: string[],
  options: ExecFileOptions,
): Promise<CliOutcome> {
  return new Promise((settle) => {
    execFile(command, args, { ...options, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: unknown }).code ?? 1) : 0;
      settle({ code: typeof code === 'number' ? code : 1, stdout, stderr });
    });
  });
}

/** Runs the real `airlock` CLI (on no PostgreSQL) to its end. */
export function runCli(args: string[]): Promise<CliOutcome> {
  return runToEnd(process.execPath, [...CLI_NODE_ARGS, ...args], {
    env: { ...process.env, DATABASE_URL: '' },
  });
}
