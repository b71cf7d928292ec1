import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';
import { Store } from '../store/store.js';
import { runLocalCli } from '../testing/operator-cli.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-damaged-index-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Workspace ids that fill the primary key's index with keys easy to find on its pages. */
const IDS = Array.from({ length: 300 }, (_, i) => `ws_index_${String(i).padStart(5, '0')}`);

/** A stopped kernel's data directory whose store holds the workspaces above. */
async function storeWithWorkspaces(name: string): Promise<string> {
  const dataDir = join(root, name);
  const store = await Store.open({ dataDir });
  await store.db
    .insertInto('workspaces')
    .values(IDS.map((id) => ({ id, name: id, created_at: 1 })))
    .execute();
  await store.close();
  return dataDir;
}

/**
 * Changes one key on a leaf page of the workspaces' primary-key index, as a bad sector or a
 * torn write would: every page still reads, so SQLite's quick check passes, but the index no
 * longer finds the row it names.
 */
function damageIndex(file: string): void {
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  const pageSize = database.pragma('page_size', { simple: true }) as number;
  const index = database
    .prepare(
      "select name from sqlite_master where type = 'index' and tbl_name = 'workspaces' and name like 'sqlite_autoindex%'",
    )
    .get() as { name: string };
  const { pageno } = database
    .prepare("select pageno from dbstat where name = ? and pagetype = 'leaf' limit 1")
    .get(index.name) as { pageno: number };
  expect(database.pragma('quick_check', { simple: true })).toBe('ok');
  database.close();
  const bytes = readFileSync(file);
  const page = bytes.subarray((pageno - 1) * pageSize, pageno * pageSize);
  const key = page.indexOf('ws_index_', page.readUInt16BE(5));
  expect(key).toBeGreaterThan(0);
  page[key + 'ws_index_'.length] = '9'.charCodeAt(0);
  writeFileSync(file, bytes);
  const damaged = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    expect(damaged.pragma('quick_check', { simple: true })).toBe('ok');
    expect(damaged.pragma('integrity_check', { simple: true })).not.toBe('ok');
  } finally {
    damaged.close();
  }
}

function digest(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

let good: string;

beforeAll(async () => {
  const dataDir = await storeWithWorkspaces('source');
  good = join(root, 'good.sqlite');
  const backup = await runLocalCli(['backup', good, '--data-dir', dataDir]);
  expect(backup.code, backup.stderr).toBe(0);
}, 60_000);

describe('a damaged index is found before a backup or a restore says done', {
  timeout: 60_000,
}, () => {
  it('refuses to restore a backup whose index is damaged, and leaves the store in place', async () => {
    const damaged = join(root, 'damaged.sqlite');
    writeFileSync(damaged, readFileSync(good));
    damageIndex(damaged);
    const dataDir = await storeWithWorkspaces('restore-target');
    const store = join(dataDir, SQLITE_FILE_NAME);
    const before = digest(store);
    const entries = readdirSync(dataDir).sort();

    const refused = await runLocalCli(['restore', damaged, '--data-dir', dataDir]);
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.stderr).toContain(`airlock restore: backup_corrupt: ${damaged}`);
    expect(digest(store)).toBe(before);
    expect(readdirSync(dataDir).sort()).toEqual(entries);
  });

  it('refuses to back up a store whose index is damaged, naming the store, and writes no file', async () => {
    const dataDir = await storeWithWorkspaces('damaged-source');
    damageIndex(join(dataDir, SQLITE_FILE_NAME));
    const target = join(root, 'from-damaged.sqlite');

    const refused = await runLocalCli(['backup', target, '--data-dir', dataDir]);
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.stderr).toContain(
      `airlock backup: store_corrupt: ${join(dataDir, SQLITE_FILE_NAME)}`,
    );
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(root).filter((name) => name.includes('partial'))).toEqual([]);
  });
});
