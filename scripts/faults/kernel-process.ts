import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));

/** Where a kernel keeps its state: a SQLite data directory or a PostgreSQL URL. */
export type StoreArgs = { dataDir: string } | { databaseUrl: string };

/** A real `airlock serve` child process that can be killed with SIGKILL and started again. */
export interface KernelProcess {
  readonly name: string;
  readonly url: string;
  /** Everything the current and earlier processes wrote on stderr (the first start's banner). */
  readonly stderr: string;
  alive(): boolean;
  /** SIGKILL, then wait for the exit. */
  kill9(): Promise<void>;
  /** Starts the process again on the same port and store. */
  start(): Promise<void>;
  /** SIGTERM, for the end of the test. */
  stop(): Promise<void>;
}

// Every child still running when the script ends (even by a throw) is killed with it.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts `airlock serve` on a loopback port (short leases, rate limits off,
 * no demo run) and resolves once it listens.
 */
export async function startKernel(
  name: string,
  store: StoreArgs,
  extraArgs: readonly string[] = [],
): Promise<KernelProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let stderr = '';
  const storeArgs =
    'dataDir' in store ? ['--data-dir', store.dataDir] : ['--database-url', store.databaseUrl];
  const launch = async () => {
    const spawned = spawn(
      process.execPath,
      [
        CLI,
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        ...storeArgs,
        '--lease',
        '2s',
        '--rate-limit',
        'off',
        '--no-demo',
        ...extraArgs,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATABASE_URL: '' } },
    );
    child = spawned;
    children.add(spawned);
    spawned.once('exit', () => children.delete(spawned));
    let stdout = '';
    spawned.stderr!.on('data', (chunk) => {
      stderr += chunk;
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not listen in 30 s`)), 30_000);
      spawned.stdout!.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes('airlock kernel listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      spawned.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited before listening (${code ?? signal}): ${stderr}`));
      });
    });
    // Keep draining stdout so the pipe never fills.
    spawned.stdout!.resume();
  };
  await launch();
  return {
    name,
    url,
    get stderr() {
      return stderr;
    },
    alive: () => child !== null && child.exitCode === null && child.signalCode === null,
    async kill9() {
      if (!child) return;
      child.kill('SIGKILL');
      await exited(child);
    },
    start: launch,
    async stop() {
      if (!child) return;
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}
