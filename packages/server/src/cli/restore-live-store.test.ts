import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KERNEL_LOCK_DATABASE } from '../store/sqlite/kernel-lock.js';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';
import { runLocalInProcess } from '../testing/cli-in-process.js';
import { type KernelProcess, runCli, startKernelProcess } from '../testing/kernel-process.js';

/** A restore into a directory a live kernel serves, when the kernel's lock file was removed. */

const root = mkdtempSync(join(tmpdir(), 'airlock-restore-live-store-'));
let kernel: KernelProcess | undefined;
afterAll(async () => {
  await kernel?.stop();
  rmSync(root, { recursive: true, force: true });
});

const dataDir = join(root, 'served');
const backup = join(root, 'served.sqlite');
const store = join(dataDir, SQLITE_FILE_NAME);

/**
 * Whether a refusal names what refused it: the store file the kernel has open, or, once the
 * kernel made and locked its kernel.lock.sqlite again (within 2 s), the kernel's pid.
 */
const refusedFor = (stderr: string) =>
  stderr.includes(store) || stderr.includes(`pid ${kernel?.pid}`);

beforeAll(async () => {
  kernel = await startKernelProcess({ dataDir });
  const backedUp = await runLocalInProcess(['backup', backup, '--data-dir', dataDir]);
  expect(backedUp.code, backedUp.stderr).toBe(0);
}, 120_000);

describe('airlock restore and fence under a live kernel whose kernel.lock.sqlite is gone', {
  timeout: 120_000,
}, () => {
  it('is refused as kernel_running and leaves the served store in place', async () => {
    // As a cleanup script or a person tidying the directory does: the kernel keeps serving.
    rmSync(join(dataDir, KERNEL_LOCK_DATABASE));
    // The live kernel writes its file meanwhile (checkpoints): a swap would put another file there.
    const before = statSync(store).ino;
    const restored = await runLocalInProcess(['restore', backup, '--data-dir', dataDir]);
    expect(restored.code, restored.stderr).toBe(1);
    expect(restored.stderr).toContain('airlock restore: kernel_running: ');
    expect(refusedFor(restored.stderr)).toBe(true);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('before-restore-'))).toEqual([]);
    expect(existsSync(join(dataDir, 'restoring'))).toBe(false);
    expect(statSync(store).ino).toBe(before);
    // Still the kernel's: it answers on its port.
    expect((await fetch(`${kernel!.url}/healthz`)).status).toBe(200);
  });

  it('refuses airlock fence too, which would fence the calls that kernel is running', async () => {
    const fenced = await runCli(['fence', '--data-dir', dataDir]);
    expect(fenced.code, fenced.stderr).toBe(1);
    expect(fenced.stderr).toContain('airlock fence: kernel_running: ');
    expect(refusedFor(fenced.stderr)).toBe(true);
  });

  it('goes ahead once that kernel has stopped', async () => {
    await kernel!.stop();
    const restored = await runLocalInProcess(['restore', backup, '--data-dir', dataDir]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain('restored 1 workspace(s)');
  });
});
