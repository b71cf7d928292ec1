import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { holdDataDir } from './sqlite/kernel-lock.js';
import { backupSqliteStore } from './sqlite/sqlite-backup.js';
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

/** A data directory made by someone else, as a package or `mkdir` makes one: others may list it. */
function openDirectory(): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-open-dir-'));
  chmodSync(dataDir, 0o755);
  made.push(dataDir);
  return dataDir;
}
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('the files the kernel keeps every call in', () => {
  it('are their owner’s alone in a data directory others may list: the store, its -wal and -shm', async () => {
    const dataDir = openDirectory();
    const store = await Store.open({ dataDir });
    try {
      await store.db
        .insertInto('workspaces')
        .values({ id: 'ws_private', name: 'private', created_at: 1 })
        .execute();
      for (const name of ['airlock.sqlite', 'airlock.sqlite-wal', 'airlock.sqlite-shm']) {
        expect([name, statSync(join(dataDir, name)).mode & 0o777]).toEqual([name, 0o600]);
      }
    } finally {
      await store.close();
    }
  });

  it('keep the mode an operator gave an existing store', async () => {
    const dataDir = openDirectory();
    await (await Store.open({ dataDir })).close();
    chmodSync(join(dataDir, 'airlock.sqlite'), 0o640);
    await (await Store.open({ dataDir })).close();
    expect(statSync(join(dataDir, 'airlock.sqlite')).mode & 0o777).toBe(0o640);
  });

  it('include a backup while it is being copied, not only once it is renamed into place', async () => {
    const dataDir = openDirectory();
    await (await Store.open({ dataDir })).close();
    const backups = openDirectory();
    const modes: number[] = [];
    await backupSqliteStore({
      dataDir,
      target: join(backups, 'b.sqlite'),
      onProgress: () => {
        // The copy in progress: `.b.sqlite.<its own id>.partial`.
        for (const name of readdirSync(backups).filter((name) => name.endsWith('.partial'))) {
          modes.push(statSync(join(backups, name)).mode & 0o777);
        }
      },
    });
    expect(modes.length).toBeGreaterThan(0);
    expect(new Set(modes)).toEqual(new Set([0o600]));
  });
});
