import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './harness.js';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../cli.ts');
const NODE_ARGS = ['--conditions=source', '--import', 'tsx', CLI];

/** A real `airlock serve` process on a SQLite data directory. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** What it printed on stderr (the first start's banner with its tokens). */
  stderr(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** The tokens and workspace a first start prints. */
export interface Banner {
  workspaceId: string;
  agent: string;
  executor: string;
  member: string;
}

/** Starts `airlock serve` on a data directory (a free port, no demo run) and waits until it listens. */
export async function serveProcess(dataDir: string, extra: string[] = []): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [...NODE_ARGS, 'serve', '--port', '0', '--data-dir', dataDir, '--no-demo', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATABASE_URL: '' } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const url = await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`airlock serve exited: ${stderr}`);
      return /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout)?.[1] ?? null;
    },
    { what: 'the kernel process to listen', timeoutMs: 60_000 },
  );
  // The banner follows the listening line.
  await waitFor(async () => stderr.includes('Airlock is ready'), { what: 'the banner' });
  return {
    child,
    url,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((settle) => child.once('exit', settle));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Reads the workspace and tokens from a first start's banner. */
export function bannerOf(stderr: string): Banner {
  const pick = (pattern: RegExp) => {
    const found = pattern.exec(stderr)?.[1];
    if (!found) throw new Error(`no ${pattern} in the banner:\n${stderr}`);
    return found;
  };
  return {
    workspaceId: pick(/workspace\s+(\S+)/),
    agent: pick(/agent token\s+(\S+)/),
    executor: pick(/executor token\s+(\S+)/),
    member: pick(/member token\s+(\S+)/),
  };
}

/** What a finished CLI command printed and its exit code. */
export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `airlock` CLI (from source) to its end. */
export function runCli(args: string[]): Promise<CliOutcome> {
  return new Promise((settle) => {
    execFile(
      process.execPath,
      [...NODE_ARGS, ...args],
      { env: { ...process.env, DATABASE_URL: '' } },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? 1) : 0;
        settle({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
  });
}
