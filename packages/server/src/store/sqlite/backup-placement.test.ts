import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../store.js';
import { BackupError, backupSqliteStore } from './sqlite-backup.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-placement-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A data directory whose store takes many steps to copy (about 4 MB, four steps of 1024 pages). */
async function storeOfSomeSize(name: string): Promise<string> {
  const dataDir = join(root, name);
  const store = await Store.open({ dataDir });
  try {
    const filler = 'x'.repeat(4000);
    await store.db
      .insertInto('workspaces')
      .values(
        Array.from({ length: 1000 }, (_, n) => ({ id: `ws_${n}`, name: filler, created_at: n })),
      )
      .execute();
  } finally {
    await store.close();
  }
  return dataDir;
}

async function outcome(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'done',
    (error: unknown) => (error instanceof BackupError ? error.code : String(error)),
  );
}

describe('a backup never replaces a file, even one made while it copies', () => {
  it('keeps a file that appears at the target during the copy, and refuses', async () => {
    const dataDir = await storeOfSomeSize('appears');
    const targets = mkdtempSync(join(root, 'targets-'));
    const target = join(targets, 'b.sqlite');
    const said = await outcome(
      backupSqliteStore({
        dataDir,
        target,
        onProgress: () => {
          if (readdirSync(targets).includes('b.sqlite')) return;
          writeFileSync(target, 'made by someone else meanwhile');
        },
      }),
    );
    expect(said).toBe('backup_target_exists');
    expect(readFileSync(target, 'utf8')).toBe('made by someone else meanwhile');
    expect(readdirSync(targets)).toEqual(['b.sqlite']);
  });

  it('lets one of two backups to one file land whole, and the other refuse, neither undoing the other', async () => {
    const dataDir = await storeOfSomeSize('twice');
    const targets = mkdtempSync(join(root, 'targets-'));
    const target = join(targets, 'b.sqlite');
    const both = await Promise.all([
      outcome(backupSqliteStore({ dataDir, target })),
      outcome(backupSqliteStore({ dataDir, target })),
    ]);
    expect(both.sort()).toEqual(['backup_target_exists', 'done']);
    expect(readdirSync(targets)).toEqual(['b.sqlite']);
    const copy = new SqliteDatabase(target, { readonly: true });
    try {
      expect(copy.pragma('quick_check', { simple: true })).toBe('ok');
      expect(copy.prepare('select count(*) as n from workspaces').get()).toEqual({ n: 1000 });
    } finally {
      copy.close();
    }
  });
});
