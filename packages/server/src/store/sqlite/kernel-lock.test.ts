import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, holdDataDir, kernelHoldingDataDir } from './kernel-lock.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-kernel-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('holdDataDir', () => {
  it('holds a directory exclusively until let go, and lets go of its own lock only', () => {
    const dir = join(root, 'one');
    const release = holdDataDir(dir);
    expect(kernelHoldingDataDir(dir)?.pid).toBe(process.pid);
    const refused = (() => {
      try {
        holdDataDir(dir);
        return null;
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as DataDirInUseError).code).toBe('data_dir_in_use');
    expect((refused as Error).message).toContain(`pid ${process.pid}`);
    release();
    expect(existsSync(join(dir, 'kernel.lock'))).toBe(false);
    // A lock rewritten by someone else after ours is not ours to remove.
    const again = holdDataDir(dir);
    const foreign = JSON.stringify({ pid: 1, host: 'elsewhere', started_at: '' });
    writeFileSync(join(dir, 'kernel.lock'), foreign);
    again();
    expect(readFileSync(join(dir, 'kernel.lock'), 'utf8')).toBe(foreign);
    // Another host's lock cannot be checked from here: it holds.
    expect(() => holdDataDir(dir)).toThrow(/on host elsewhere/);
  });

  it('takes over an unreadable lock and one whose process is gone', () => {
    const dir = join(root, 'stale');
    holdDataDir(dir)();
    writeFileSync(join(dir, 'kernel.lock'), 'not json');
    holdDataDir(dir)();
    writeFileSync(
      join(dir, 'kernel.lock'),
      JSON.stringify({ pid: 2 ** 22 + 17, host: hostname(), started_at: '' }),
    );
    const release = holdDataDir(dir);
    expect(kernelHoldingDataDir(dir)?.pid).toBe(process.pid);
    release();
  });
});
