import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KernelProcess, runCli, startKernelProcess } from '../testing/kernel-process.js';

/** One kernel per SQLite data directory, over real `airlock serve` processes. */

const root = mkdtempSync(join(tmpdir(), 'airlock-data-dir-lock-'));
const kernels: KernelProcess[] = [];
afterAll(async () => {
  for (const kernel of kernels) await kernel.stop();
  rmSync(root, { recursive: true, force: true });
});

const lockOf = (dataDir: string) =>
  JSON.parse(readFileSync(join(dataDir, 'kernel.lock'), 'utf8')) as { pid: number };
const portOf = (url: string) => new URL(url).port;

/** Polls until `holds` is true, failing after `ms`. */
async function eventually(holds: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!holds()) {
    if (Date.now() > until) throw new Error(`still not so after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// The cases wait on kernels and commands they start, each in its own directory: side by side.
describe.concurrent('airlock serve holds its data directory', { timeout: 180_000 }, () => {
  let first: KernelProcess;
  const dataDir = join(root, 'held');
  const backup = join(root, 'held.sqlite');

  beforeAll(async () => {
    first = await startKernelProcess({ dataDir });
    kernels.push(first);
    expect((await runCli(['backup', backup, '--data-dir', dataDir])).code).toBe(0);
  });

  it('refuses a second kernel on a directory a live one serves, and restore stays refused', async () => {
    // The first kernel's port: before the lock, this start overwrote kernel.lock and then failed.
    const second = await runCli([
      'serve',
      '--data-dir',
      dataDir,
      '--port',
      portOf(first.url),
      '--no-demo',
    ]);
    expect(second.code).toBe(3);
    expect(second.stderr).toContain('airlock serve: data_dir_in_use: ');
    expect(second.stderr).toContain(`pid ${first.pid}`);
    expect(second.stderr).not.toMatch(/\n\s+at /);
    expect(lockOf(dataDir).pid).toBe(first.pid);
    const restored = await runCli(['restore', backup, '--data-dir', dataDir]);
    expect(restored.code).toBe(1);
    expect(restored.stderr).toContain('kernel_running');
    expect(restored.stderr).toContain(`pid ${first.pid}`);
  });

  it('makes and locks its kernel.lock.sqlite again when a cleanup removes it, so a second kernel is still refused', async () => {
    const tidied = join(root, 'tidied');
    const live = await startKernelProcess({ dataDir: tidied });
    kernels.push(live);
    const lockFile = join(tidied, 'kernel.lock.sqlite');
    const before = statSync(lockFile).ino;
    // A cleanup script or a person tidying the directory: the file's lock goes with it.
    rmSync(lockFile);
    rmSync(join(tidied, 'kernel.lock'));
    await eventually(() => existsSync(lockFile) && statSync(lockFile).ino !== before, 20_000);
    await eventually(() => existsSync(join(tidied, 'kernel.lock')), 20_000);
    const second = await runCli(['serve', '--data-dir', tidied, '--port', '0', '--no-demo']);
    expect(second.code).toBe(3);
    expect(second.stderr).toContain('airlock serve: data_dir_in_use: ');
    expect(second.stderr).toContain(`pid ${live.pid}`);
    expect((await fetch(`${live.url}/healthz`)).status).toBe(200);
    await live.stop();
    expect(live.child.exitCode).toBe(0);
    expect(existsSync(join(tidied, 'kernel.lock'))).toBe(false);
  });

  it('lets go of the directory when its start fails', async () => {
    const other = join(root, 'failed-start');
    const failed = await runCli(['serve', '--data-dir', other, '--port', portOf(first.url)]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/EADDRINUSE/);
    expect(failed.stderr).toContain('pick another port with --port N');
    // The exit code serve --help gives for it.
    const help = await runCli(['serve', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'any other failed start (a port another process listens on, a store it cannot reach), with exit 1',
    );
    expect(existsSync(join(other, 'kernel.lock'))).toBe(false);
    // Nothing holds it now: a restore goes ahead.
    const restored = await runCli(['restore', backup, '--data-dir', other]);
    expect(restored.stderr).toContain('restored 1 workspace(s)');
    expect(restored.code).toBe(0);
    expect(existsSync(join(other, 'kernel.lock'))).toBe(false);
  });

  it('takes over a lock whose process is gone', async () => {
    const stale = join(root, 'stale');
    mkdirSync(stale);
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(
      join(stale, 'kernel.lock'),
      JSON.stringify({ pid: gone, host: hostname(), started_at: '2020-01-01T00:00:00.000Z' }),
    );
    const kernel = await startKernelProcess({ dataDir: stale });
    kernels.push(kernel);
    expect(lockOf(stale).pid).toBe(kernel.pid);
    // At once after its banner: the SIGTERM is heard (a clean exit 0), not fatal mid-start.
    await kernel.stop();
    expect(kernel.child.exitCode).toBe(0);
    expect(existsSync(join(stale, 'kernel.lock'))).toBe(false);
  });

  it('serves again after a kill -9, whatever pid or host the lock it left names', async () => {
    const killed = join(root, 'killed');
    for (const left of [
      { pid: 1, host: hostname() },
      { pid: 4242, host: 'old-container-id' },
    ]) {
      const kernel = await startKernelProcess({ dataDir: killed });
      kernels.push(kernel);
      const exited = new Promise((done) => kernel.child.once('exit', done));
      process.kill(kernel.pid, 'SIGKILL');
      await exited;
      // As after a container's PID 1 restarted in place, or a re-created container's new hostname.
      writeFileSync(
        join(killed, 'kernel.lock'),
        JSON.stringify({ ...left, started_at: '2020-01-01T00:00:00.000Z' }),
      );
      const next = await startKernelProcess({ dataDir: killed });
      kernels.push(next);
      expect(lockOf(killed).pid).toBe(next.pid);
      await next.stop();
    }
  });
});
