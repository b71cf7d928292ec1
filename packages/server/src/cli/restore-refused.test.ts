import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupSqliteStore } from '../store/sqlite/sqlite-backup.js';
import { Store } from '../store/store.js';
import { runLocalInProcess } from '../testing/cli-in-process.js';
import { storeBeforeMigration } from '../testing/older-schema.js';
import { runLocalCli } from '../testing/operator-cli.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-restore-refused-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A file of 4 KiB that is no SQLite database: restore checks it only after taking the lock. */
const foreign = join(root, 'foreign.sqlite');
writeFileSync(foreign, Buffer.alloc(4096, 1));

describe('a refused restore into a data directory that exists changes nothing in it', {
  timeout: 60_000,
}, () => {
  it('leaves an empty directory empty', async () => {
    const dataDir = join(root, 'empty');
    mkdirSync(dataDir);
    // The real CLI in a child process; the other cases run the command in-process, as cli.ts does.
    const refused = await runLocalCli(['restore', foreign, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('airlock restore: not_an_airlock_store: ');
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('leaves a directory holding other files as it was, without the lock it took', async () => {
    const dataDir = join(root, 'with files');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'notes.txt'), 'mine\n');
    const refused = await runLocalInProcess(['restore', foreign, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('airlock restore: not_an_airlock_store: ');
    expect(readdirSync(dataDir)).toEqual(['notes.txt']);
  });

  it('keeps a lock file that was there before: a kernel served the directory', async () => {
    const dataDir = join(root, 'served');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'kernel.lock.sqlite'), '');
    const refused = await runLocalInProcess(['restore', foreign, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(readdirSync(dataDir)).toEqual(['kernel.lock.sqlite']);
  });
});

describe('a folder named restoring in the data directory', { timeout: 60_000 }, () => {
  /** A backup `airlock restore` accepts. */
  const good = join(root, 'good.sqlite');
  beforeAll(async () => {
    const source = join(root, 'source');
    const store = await Store.open({ dataDir: source });
    await store.close();
    await backupSqliteStore({ dataDir: source, target: good });
  });

  /** A data directory whose restoring/ holds a file of the person's own. */
  function withOwnRestoringFolder(name: string): string {
    const dataDir = join(root, name);
    mkdirSync(join(dataDir, 'restoring'), { recursive: true });
    writeFileSync(join(dataDir, 'restoring', 'notes.txt'), 'mine\n');
    return dataDir;
  }

  it('is left as it was by a refused restore', async () => {
    const dataDir = withOwnRestoringFolder('refused-with-own-restoring');
    const refused = await runLocalInProcess(['restore', foreign, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(readFileSync(join(dataDir, 'restoring', 'notes.txt'), 'utf8')).toBe('mine\n');
  });

  it('holding files a restore did not make is refused, before anything is put in place', async () => {
    const dataDir = withOwnRestoringFolder('good-with-own-restoring');
    const refused = await runLocalInProcess(['restore', good, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `airlock restore: restoring_dir_in_use: ${join(dataDir, 'restoring')} holds notes.txt`,
    );
    expect(readdirSync(dataDir)).toEqual(['restoring']);
    expect(readdirSync(join(dataDir, 'restoring'))).toEqual(['notes.txt']);
  });

  it('that is a file is refused the same way, and kept', async () => {
    const dataDir = join(root, 'with-a-file-named-restoring');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'restoring'), 'mine\n');
    const refused = await runLocalInProcess(['restore', good, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `airlock restore: restoring_dir_in_use: ${join(dataDir, 'restoring')} is a file or a link`,
    );
    expect(readFileSync(join(dataDir, 'restoring'), 'utf8')).toBe('mine\n');
    expect(readdirSync(dataDir)).toEqual(['restoring']);
  });

  it('holding the backup named is refused, and the backup kept: clearing it would delete the backup', async () => {
    const dataDir = join(root, 'backup-in-restoring');
    mkdirSync(join(dataDir, 'restoring'), { recursive: true });
    // Where a restore cut short leaves its copy: a person may take it for a backup.
    const inside = join(dataDir, 'restoring', 'airlock.sqlite');
    writeFileSync(inside, readFileSync(good));
    const refused = await runLocalInProcess(['restore', inside, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `airlock restore: restoring_dir_in_use: ${inside} lies in ${join(dataDir, 'restoring')}`,
    );
    expect(readFileSync(inside)).toEqual(readFileSync(good));
    expect(readdirSync(dataDir)).toEqual(['restoring']);
    // Named through a symbolic link elsewhere, it is the same file.
    const link = join(root, 'link-to-restoring-copy.sqlite');
    symlinkSync(inside, link);
    const linked = await runLocalInProcess(['restore', link, '--data-dir', dataDir]);
    expect(linked.stderr).toContain('airlock restore: restoring_dir_in_use: ');
    expect(readFileSync(inside)).toEqual(readFileSync(good));
  });

  it('left by a restore cut short (its copy and the files SQLite makes beside it) is cleared', async () => {
    const dataDir = join(root, 'after-a-cut-restore');
    mkdirSync(join(dataDir, 'restoring'), { recursive: true });
    for (const name of ['airlock.sqlite', 'airlock.sqlite-wal', 'airlock.sqlite-journal'])
      writeFileSync(join(dataDir, 'restoring', name), 'half\n');
    const restored = await runLocalInProcess(['restore', good, '--data-dir', dataDir]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(existsSync(join(dataDir, 'restoring'))).toBe(false);
    expect(existsSync(join(dataDir, 'airlock.sqlite'))).toBe(true);
  });
});

describe('a backup whose schema was changed after it was written', { timeout: 60_000 }, () => {
  const good = join(root, 'good-for-schema.sqlite');
  beforeAll(async () => {
    const source = join(root, 'schema-source');
    const store = await Store.open({ dataDir: source });
    await store.close();
    await backupSqliteStore({ dataDir: source, target: good });
  });

  /** A copy of the good backup with `change` run on it (by hand, or by another program). */
  function changed(name: string, change: string): string {
    const file = join(root, name);
    writeFileSync(file, readFileSync(good));
    const database = new SqliteDatabase(file);
    database.exec(change);
    database.close();
    return file;
  }

  for (const [what, change, named] of [
    ['a table dropped', 'drop table tasks', 'table tasks'],
    ['a column dropped', 'alter table runs drop column summary', 'column runs.summary'],
  ] as const) {
    it(`is refused as backup_corrupt (${what}), and nothing is put in place`, async () => {
      const file = changed(`${what.replaceAll(' ', '-')}.sqlite`, change);
      const dataDir = join(root, `into-${what.replaceAll(' ', '-')}`);
      const refused = await runLocalInProcess(['restore', file, '--data-dir', dataDir]);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toContain(`airlock restore: backup_corrupt: ${file} `);
      expect(refused.stderr).toContain(named);
      expect(existsSync(dataDir)).toBe(false);
    });
  }

  it('is refused as backup_corrupt when a migration it needs fails on what was changed', async () => {
    const source = join(root, 'older-schema-source');
    await storeBeforeMigration({ dataDir: source }, '0018', async () => {});
    const database = new SqliteDatabase(join(source, 'airlock.sqlite'));
    database.exec('drop table tasks');
    database.close();
    const file = join(source, 'airlock.sqlite');
    const dataDir = join(root, 'into-older-changed');
    const refused = await runLocalInProcess(['restore', file, '--data-dir', dataDir]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(
      `airlock restore: backup_corrupt: ${file} could not be migrated to this version (no such table: tasks)`,
    );
    expect(existsSync(dataDir)).toBe(false);
  });
});
