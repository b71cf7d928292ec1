import { chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../store.js';
import { holdDataDir, KERNEL_LOCK_DATABASE } from './kernel-lock.js';
import { SQLITE_FILE_NAME } from './sqlite-backend.js';
import { backupSqliteStore, restoreSqliteStore } from './sqlite-backup.js';

/** The service user a data directory belongs to (nobody), its store restored by root (`sudo airlock restore`). */
const SERVICE = { uid: 65_534, gid: 65_534 };
const asRoot = process.getuid?.() === 0;
if (!asRoot)
  console.warn('[airlock tests] skipping the restore by root: the tests do not run as root');

const root = mkdtempSync(join(tmpdir(), 'airlock-restore-owner-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every path under `dir` (itself included) with its owner. */
function owners(dir: string): [string, number, number][] {
  const found: [string, number, number][] = [];
  const walk = (path: string, name: string) => {
    const stat = statSync(path);
    found.push([name, stat.uid, stat.gid]);
    if (stat.isDirectory())
      for (const entry of readdirSync(path)) walk(join(path, entry), `${name}/${entry}`);
  };
  walk(dir, '.');
  return found;
}

describe('a restore run by root into a data directory a service user owns', () => {
  it.skipIf(!asRoot)(
    'leaves every file it made there to that user, so its kernel can open them',
    async () => {
      const made = join(root, 'made');
      await (await Store.open({ dataDir: made })).close();
      const backup = join(root, 'backup.sqlite');
      await backupSqliteStore({ dataDir: made, target: backup });

      const dataDir = join(root, 'service');
      mkdirSync(dataDir, { mode: 0o700 });
      await (await Store.open({ dataDir })).close();
      for (const name of ['', ...readdirSync(dataDir)])
        chownSync(join(dataDir, name), SERVICE.uid, SERVICE.gid);

      const release = holdDataDir(dataDir);
      try {
        const restored = await restoreSqliteStore({ dataDir, file: backup, runningKernel: null });
        expect(restored.previous).not.toBeNull();
      } finally {
        release();
      }
      const notTheService = owners(dataDir).filter(
        ([, uid, gid]) => uid !== SERVICE.uid || gid !== SERVICE.gid,
      );
      expect(notTheService).toEqual([]);
      expect(readdirSync(dataDir)).toEqual(
        expect.arrayContaining([SQLITE_FILE_NAME, KERNEL_LOCK_DATABASE]),
      );
    },
  );
});
