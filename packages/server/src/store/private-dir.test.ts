import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdDataDir } from './sqlite/kernel-lock.js';
import { Store } from './store.js';

describe('a data directory the kernel creates', () => {
  it('is its owner’s alone, down to the folder that did not exist yet', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'airlock-private-'));
    const dataDir = join(parent, 'nested', '.airlock');
    const letGo = holdDataDir(dataDir);
    const store = await Store.open({ dataDir });
    try {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(parent, 'nested')).mode & 0o777).toBe(0o700);
    } finally {
      await store.close();
      letGo();
    }
  });

  // Node's recursive mkdir spins for ever on such a path (mkdir answers ENOENT under /proc).
  it.skipIf(!existsSync('/proc/self'))(
    'is refused with ENOENT where mkdir cannot make it, rather than hanging',
    async () => {
      const dataDir = '/proc/airlock-no-such/.airlock';
      expect(() => holdDataDir(dataDir)).toThrow(/ENOENT/);
      await expect(Store.open({ dataDir })).rejects.toThrow(/ENOENT/);
    },
  );
});
