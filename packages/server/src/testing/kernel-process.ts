import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkspaceTokens } from './workspace-tokens.js';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../cli.ts');

/** A real `airlock serve` process on a SQLite data directory, with the tokens its banner printed. */
export interface KernelProcess {
  child: ChildProcess;
  /** The kernel's own process id (not the wrapper's, when one runs it). */
  pid: number;
  url: string;
  workspaceId: string;
  tokens: WorkspaceTokens;
  /** SIGTERM to the kernel, then wait for the exit (of the wrapper too). */
  stop(): Promise<void>;
}

/** What to start. */
export interface KernelProcessOptions {
  dataDir: string;
  /** More `airlock serve` arguments, e.g. `['--durability', 'relaxed']`. */
  args?: string[];
  /** A command that runs the kernel, e.g. `['strace', '-f', '-o', file]`. */
  wrapper?: string[];
}

function pick(text: string, pattern: RegExp): string {
  const found = pattern.exec(text);
  if (!found) throw new Error(`no ${pattern} in the kernel's output: ${text}`);
  return found[1]!;
}

/**
 * Starts `airlock serve` from the sources on a free loopback port (no demo,
 * rate limits off) and resolves once it printed its first-start banner.
 * @throws Error when the process exits first or takes over 60 s.
 */
export async function startKernelProcess(options: KernelProcessOptions): Promise<KernelProcess> {
  const command = [
    process.execPath,
    '--conditions=source',
    '--import',
    'tsx',
    CLI,
    'serve',
    '--port',
    '0',
    '--data-dir',
    options.dataDir,
    '--no-demo',
    '--rate-limit',
    'off',
    ...(options.args ?? []),
  ];
  const all = [...(options.wrapper ?? []), ...command];
  const child = spawn(all[0]!, all.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: '', AIRLOCK_DURABILITY: '' },
  });
  let output = '';
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the kernel did not start: ${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      if (/member token[^\n]*\n/.test(output) && output.includes('kernel listening')) {
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
  return {
    child,
    pid,
    url: pick(output, /ready at (http:\/\/\S+)/),
    workspaceId: pick(output, /workspace\s+(\S+)/),
    tokens: {
      agent: pick(output, /agent token\s+(\S+)/),
      executor: pick(output, /executor token\s+(\S+)/),
      member: pick(output, /member token\s+(\S+)/),
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((settle) => child.once('exit', settle));
      // The kernel itself: a wrapper such as strace ends when it does.
      process.kill(pid, 'SIGTERM');
      await exited;
    },
  };
}
