import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { listWorkspaces } from '../accounts.js';
import { Store } from '../store.js';
import { SQLITE_FILE_NAME } from './sqlite-backend.js';
import { backupSqliteStore, restoreSqliteStore } from './sqlite-backup.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-restore-swap-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A data directory whose store holds one workspace, closed. */
async function storeWith(workspaceId: string): Promise<string> {
  n += 1;
  const dir = join(root, `case-${n}`);
  const store = await Store.open({ dataDir: dir });
  await store.db
    .insertInto('workspaces')
    .values({ id: workspaceId, name: workspaceId, created_at: 1 })
    .execute();
  await store.close();
  return dir;
}

async function backupOf(workspaceId: string): Promise<string> {
  n += 1;
  const file = join(root, `${workspaceId}-${n}.sqlite`);
  await backupSqliteStore({ dataDir: await storeWith(workspaceId), target: file });
  return file;
}

async function workspacesIn(dir: string): Promise<string[]> {
  const store = await Store.open({ dataDir: dir });
  try {
    return (await listWorkspaces(store)).map((w) => w.id);
  } finally {
    await store.close();
  }
}

describe('a restore puts its copy in place', () => {
  it('leaves the store that was there whole and in place when cut short before its rename', async () => {
    const dir = await storeWith('ws_old');
    const file = await backupOf('ws_new');
    await expect(
      restoreSqliteStore({
        dataDir: dir,
        file,
        runningKernel: null,
        beforeRename: () => {
          throw new Error('power cut');
        },
      }),
    ).rejects.toThrow('power cut');
    // A kernel started now serves the store it served before, not a new empty one.
    expect(existsSync(join(dir, SQLITE_FILE_NAME))).toBe(true);
    expect(await workspacesIn(dir)).toEqual(['ws_old']);
    // Once the restore is run again, it goes through.
    const restored = await restoreSqliteStore({ dataDir: dir, file, runningKernel: null });
    expect(await workspacesIn(dir)).toEqual(['ws_new']);
    expect(readdirSync(restored.previous!)).toEqual([SQLITE_FILE_NAME]);
    expect(await workspacesIn(restored.previous!)).toEqual(['ws_old']);
  });

  it('keeps aside a store whose last commits were still in its -wal, and never lets that -wal meet the copy', async () => {
    // A kernel killed while serving: its newest commits are frames of the -wal, not yet folded.
    const served = await storeWith('ws_old');
    const writer = new SqliteDatabase(join(served, SQLITE_FILE_NAME));
    writer.pragma('wal_autocheckpoint = 0');
    writer
      .prepare("INSERT INTO workspaces (id, name, created_at) VALUES ('ws_late', 'late', 2)")
      .run();
    n += 1;
    const dir = join(root, `killed-${n}`);
    mkdirSync(dir);
    for (const suffix of ['', '-wal']) {
      copyFileSync(
        join(served, `${SQLITE_FILE_NAME}${suffix}`),
        join(dir, `${SQLITE_FILE_NAME}${suffix}`),
      );
    }
    writer.close();
    const restored = await restoreSqliteStore({
      dataDir: dir,
      file: await backupOf('ws_new'),
      runningKernel: null,
    });
    expect(await workspacesIn(dir)).toEqual(['ws_new']);
    expect((await workspacesIn(restored.previous!)).sort()).toEqual(['ws_late', 'ws_old']);
  });
});
