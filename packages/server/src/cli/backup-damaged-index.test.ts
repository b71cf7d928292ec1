import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';
import { Store } from '../store/store.js';
import { damageIndex, INDEXED_WORKSPACE_IDS, sqliteChecks } from '../testing/damaged-index.js';
import { runLocalCli } from '../testing/operator-cli.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-damaged-index-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A stopped kernel's data directory whose store holds the indexed workspaces. */
async function storeWithWorkspaces(name: string): Promise<string> {
  const dataDir = join(root, name);
  const store = await Store.open({ dataDir });
  await store.db
    .insertInto('workspaces')
    .values(INDEXED_WORKSPACE_IDS.map((id) => ({ id, name: id, created_at: 1 })))
    .execute();
  await store.close();
  return dataDir;
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
    expect(sqliteChecks(damaged)).toMatchObject({
      quick: 'ok',
      full: expect.stringMatching(/index/),
    });
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
    expect(sqliteChecks(join(dataDir, SQLITE_FILE_NAME)).quick).toBe('ok');
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
