import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { damageIndex, INDEXED_WORKSPACE_IDS } from '../../testing/damaged-index.js';
import { listWorkspaces } from '../accounts.js';
import { Store } from '../store.js';
import { DataDirInUseError, holdDataDir } from './kernel-lock.js';
import { SQLITE_FILE_NAME } from './sqlite-backend.js';
import { BackupError, backupSqliteStore, restoreSqliteStore } from './sqlite-backup.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-sqlite-backup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function fresh(): string {
  n += 1;
  return join(root, `case-${n}`);
}

/** A data directory with a store holding one workspace, left open (as a serving kernel would). */
async function openStore(): Promise<{ dir: string; store: Store }> {
  const dir = fresh();
  const store = await Store.open({ dataDir: dir });
  await store.db
    .insertInto('workspaces')
    .values({ id: 'ws_backup', name: 'backup', created_at: 1 })
    .execute();
  return { dir, store };
}

async function refusal(promise: Promise<unknown>): Promise<BackupError> {
  const error = await promise.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(BackupError);
  return error as BackupError;
}

describe('backupSqliteStore and restoreSqliteStore', () => {
  it('copies an open store, and a restore brings it back beside the store it replaces', async () => {
    const { dir, store } = await openStore();
    const file = join(root, 'one.sqlite');
    const seen: number[] = [];
    const summary = await backupSqliteStore({
      dataDir: dir,
      target: file,
      onProgress: (p) => seen.push(p.remainingPages),
    });
    await store.close();
    expect(summary).toMatchObject({ file, workspaces: 1, schema: expect.stringMatching(/^00/) });
    expect(seen.at(-1)).toBe(0);
    // A second backup to the same file is refused: a backup never overwrites.
    expect((await refusal(backupSqliteStore({ dataDir: dir, target: file }))).code).toBe(
      'backup_target_exists',
    );

    const target = fresh();
    const before = await Store.open({ dataDir: target });
    await before.close();
    const restored = await restoreSqliteStore({ dataDir: target, file, runningKernel: null });
    expect(restored.previous).toMatch(/before-restore-/);
    expect(readdirSync(restored.previous!)).toContain(SQLITE_FILE_NAME);
    const reopened = await Store.open({ dataDir: target });
    expect((await listWorkspaces(reopened)).map((w) => w.id)).toEqual(['ws_backup']);
    await reopened.close();
  });

  it('hands prepare the event heads of the store it replaces, none without one, and goes on over an unreadable one', async () => {
    const { dir, store } = await openStore();
    const file = join(root, 'heads.sqlite');
    await backupSqliteStore({ dataDir: dir, target: file });
    await store.db.updateTable('workspaces').set({ event_seq: 12 }).execute();
    await store.close();
    const seen: (ReadonlyMap<string, number> | null)[] = [];
    const prepare = async (_dir: string, heads: ReadonlyMap<string, number> | null) => {
      seen.push(heads);
    };

    const over = await restoreSqliteStore({ dataDir: dir, file, runningKernel: null, prepare });
    expect(over.replacedLog).toBe('read');
    expect(seen.at(-1)).toEqual(new Map([['ws_backup', 12]]));

    const into = await restoreSqliteStore({ dataDir: fresh(), file, runningKernel: null, prepare });
    expect(into.replacedLog).toBe('none');
    expect(seen.at(-1)).toBeNull();

    const garbage = fresh();
    mkdirSync(garbage);
    writeFileSync(join(garbage, SQLITE_FILE_NAME), Buffer.alloc(8192, 7));
    const overGarbage = await restoreSqliteStore({
      dataDir: garbage,
      file,
      runningKernel: null,
      prepare,
    });
    expect(overGarbage.replacedLog).toBe('unreadable');
    expect(seen.at(-1)).toBeNull();
  });

  it('refuses a file that is not an Airlock store, and moves nothing', async () => {
    const target = fresh();
    const text = join(root, 'notes.txt');
    writeFileSync(text, 'not a database at all, only words to fill a page '.repeat(200));
    expect(
      (await refusal(restoreSqliteStore({ dataDir: target, file: text, runningKernel: null })))
        .code,
    ).toBe('not_an_airlock_store');
    const other = join(root, 'other.sqlite');
    const database = new SqliteDatabase(other);
    database.exec('create table notes (body text)');
    database.close();
    const error = await refusal(
      restoreSqliteStore({ dataDir: target, file: other, runningKernel: null }),
    );
    expect(error.code).toBe('not_an_airlock_store');
    expect(existsSync(join(target, SQLITE_FILE_NAME))).toBe(false);
    expect(
      (
        await refusal(
          restoreSqliteStore({ dataDir: target, file: join(root, 'nope'), runningKernel: null }),
        )
      ).code,
    ).toBe('backup_not_found');
  });

  it('writes the backup and the restored store for their owner alone, whatever the umask', async () => {
    const { dir, store } = await openStore();
    const file = join(root, 'private.sqlite');
    const umask = process.umask(0o022);
    try {
      await backupSqliteStore({ dataDir: dir, target: file });
    } finally {
      process.umask(umask);
      await store.close();
    }
    expect(statSync(file).mode & 0o777).toBe(0o600);
    chmodSync(file, 0o644);
    const target = fresh();
    const before = await Store.open({ dataDir: target });
    await before.close();
    const restored = await restoreSqliteStore({ dataDir: target, file, runningKernel: null });
    expect(statSync(restored.file).mode & 0o777).toBe(0o600);
    expect(statSync(restored.previous!).mode & 0o777).toBe(0o700);
  });

  it('says a backup cut short or damaged is corrupt, not a file of another kind', async () => {
    const { dir, store } = await openStore();
    const file = join(root, 'whole.sqlite');
    await backupSqliteStore({ dataDir: dir, target: file });
    await store.close();
    const bytes = readFileSync(file);
    for (const length of [4096, Math.floor(bytes.length * 0.9), bytes.length - 512]) {
      const cut = join(root, `cut-${length}.sqlite`);
      writeFileSync(cut, bytes.subarray(0, length));
      const error = await refusal(
        restoreSqliteStore({ dataDir: fresh(), file: cut, runningKernel: null }),
      );
      expect([length, error.code]).toEqual([length, 'backup_corrupt']);
      expect(error.message).toContain('cut short');
      // Named as the person gave it, never as the restore's copy (gone once it refused).
      if (error.message.includes('holds'))
        expect(error.message.startsWith(`${cut} holds`)).toBe(true);
      expect(error.message).not.toContain('restoring');
    }
  });

  it('tells a copy damaged on its way to disk from a damaged store, and places neither', async () => {
    const dir = fresh();
    const store = await Store.open({ dataDir: dir });
    await store.db
      .insertInto('workspaces')
      .values(INDEXED_WORKSPACE_IDS.map((id) => ({ id, name: id, created_at: 1 })))
      .execute();
    await store.close();
    const target = join(root, 'damaged-on-its-way.sqlite');
    const copyError = await refusal(
      backupSqliteStore({ dataDir: dir, target, afterCopy: damageIndex }),
    );
    expect(copyError.code).toBe('backup_corrupt');
    expect(copyError.damage).toBeUndefined();
    expect(copyError.message).toContain(`the copy written for ${target} came out damaged`);
    expect(existsSync(target)).toBe(false);

    damageIndex(join(dir, SQLITE_FILE_NAME));
    const storeError = await refusal(backupSqliteStore({ dataDir: dir, target }));
    expect(storeError.code).toBe('backup_corrupt');
    expect(storeError.damage).toMatch(/index/);
    expect(existsSync(target)).toBe(false);
  });

  it('refuses a foreign SQLite file that only has tables of the same names, and moves nothing', async () => {
    const target = fresh();
    const before = await Store.open({ dataDir: target });
    await before.close();
    const foreign = join(root, 'foreign.sqlite');
    const database = new SqliteDatabase(foreign);
    database.exec(
      'create table airlock_migrations (name text, timestamp text); create table workspaces (id text)',
    );
    database.close();
    const error = await refusal(
      restoreSqliteStore({ dataDir: target, file: foreign, runningKernel: null }),
    );
    expect(error.code).toBe('not_an_airlock_store');
    expect(error.message).toContain('no Airlock migration');
    expect(readdirSync(target).filter((name) => name.startsWith('before-restore-'))).toEqual([]);
    const reopened = await Store.open({ dataDir: target });
    await reopened.close();
  });

  it('refuses a backup from a newer schema, naming the migrations it does not know', async () => {
    const { dir, store } = await openStore();
    const file = join(root, 'future.sqlite');
    await backupSqliteStore({ dataDir: dir, target: file });
    await store.close();
    const database = new SqliteDatabase(file);
    database
      .prepare('insert into airlock_migrations (name, timestamp) values (?, ?)')
      .run('9999_from_the_future', new Date().toISOString());
    database.close();
    const target = fresh();
    const error = await refusal(restoreSqliteStore({ dataDir: target, file, runningKernel: null }));
    expect(error.code).toBe('backup_newer_schema');
    expect(error.message).toContain('9999_from_the_future');
    expect(existsSync(join(target, SQLITE_FILE_NAME))).toBe(false);
  });

  it('refuses while a kernel holds the data directory, and not after it let go', async () => {
    const { dir, store } = await openStore();
    const file = join(root, 'held.sqlite');
    await backupSqliteStore({ dataDir: dir, target: file });
    const release = holdDataDir(dir);
    let holder: { pid: number | null } | null = null;
    try {
      holdDataDir(dir)();
    } catch (error) {
      if (error instanceof DataDirInUseError) holder = { pid: error.holder?.pid ?? null };
    }
    expect(holder?.pid).toBe(process.pid);
    const error = await refusal(restoreSqliteStore({ dataDir: dir, file, runningKernel: holder }));
    expect(error.code).toBe('kernel_running');
    expect(error.message).toContain(`pid ${process.pid}`);
    // A holder that has not named itself in kernel.lock still holds.
    const unnamed = await refusal(
      restoreSqliteStore({ dataDir: dir, file, runningKernel: { pid: null } }),
    );
    expect(unnamed.message).toContain('pid unknown');
    release();
    await store.close();
    holdDataDir(dir)();
  });
});
