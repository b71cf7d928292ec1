import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { holdDataDir } from '../store/sqlite/kernel-lock.js';
import { SQLITE_FILE_NAME } from '../store/store.js';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { runToEnd } from '../testing/kernel-process.js';
import { storeBeforeMigration } from '../testing/older-schema.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';

/**
 * A newer `airlock token` run on a store an older kernel still serves must
 * not migrate it under that kernel: it refuses, naming both migrations, and
 * the store keeps its schema. With no kernel serving, it migrates as before.
 */

const root = mkdtempSync(join(tmpdir(), 'airlock-token-older-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pgSkip = await postgresSkipReason();

/** Runs the real `airlock` on a store; the environment names no other store. */
function airlock(args: string[]) {
  return runToEnd(process.execPath, [...CLI_NODE_ARGS, ...args], {
    env: { ...process.env, DATABASE_URL: '', AIRLOCK_DATA_DIR: '' },
  });
}
const tokenList = (where: string[]) => airlock(['token', 'list', ...where]);

/** The migrations a SQLite store applied, read without writing to it. */
function sqliteApplied(dataDir: string): string[] {
  const db = new SqliteDatabase(join(dataDir, SQLITE_FILE_NAME), { readonly: true });
  try {
    const rows = db.prepare('select name from airlock_migrations order by name').all();
    return (rows as { name: string }[]).map((row) => row.name);
  } finally {
    db.close();
  }
}

const refusal =
  /kernel_running: the store is at migration 0016_waiting_page and this airlock is newer \(0\d{3}_[a-z_]+\); stop the kernel and start the new version first, or run the command with the version the kernel runs/;

describe('airlock token on a store at an older schema', { timeout: 120_000 }, () => {
  it('SQLite: refuses while a kernel holds the data directory, and migrates once none does', async () => {
    const dataDir = join(root, 'sqlite');
    await storeBeforeMigration({ dataDir }, '0017', async () => {});
    const before = sqliteApplied(dataDir);
    expect(before.at(-1)).toBe('0016_waiting_page');

    const release = holdDataDir(dataDir);
    try {
      const refused = await tokenList(['--data-dir', dataDir]);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toMatch(refusal);
      expect(refused.stderr).toContain(`a kernel (pid ${process.pid}) serves`);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
      expect(sqliteApplied(dataDir)).toEqual(before);
    } finally {
      release();
    }

    const listed = await tokenList(['--data-dir', dataDir]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(sqliteApplied(dataDir).length).toBeGreaterThan(before.length);
  });

  it('SQLite: fence, which holds the data directory itself, migrates an older store it fences', async () => {
    const dataDir = join(root, 'sqlite-fence');
    await storeBeforeMigration({ dataDir }, '0017', async () => {});
    const fenced = await airlock(['fence', '--data-dir', dataDir]);
    expect(fenced.code, fenced.stderr).toBe(0);
    expect(sqliteApplied(dataDir).length).toBeGreaterThan(16);
  });

  it.skipIf(pgSkip)(
    'PostgreSQL: refuses while another session is on the database, and migrates once none is',
    async () => {
      const databaseUrl = await freshPostgresDatabase();
      await storeBeforeMigration({ databaseUrl }, '0017', async () => {});
      // An older kernel keeps a session open on its database while it serves (its LISTEN).
      const kernel = new pg.Client({ connectionString: databaseUrl });
      await kernel.connect();
      const applied = async () =>
        (await kernel.query('select name from airlock_migrations order by name')).rows.map(
          (row: { name: string }) => row.name,
        );
      try {
        const before = await applied();
        expect(before.at(-1)).toBe('0016_waiting_page');
        const refused = await tokenList(['--database-url', databaseUrl]);
        expect(refused.code, refused.stderr).toBe(1);
        expect(refused.stderr).toMatch(refusal);
        expect(refused.stderr).toContain('another session is connected to the database');
        expect(await applied()).toEqual(before);
      } finally {
        await kernel.end();
      }
      const listed = await tokenList(['--database-url', databaseUrl]);
      expect(listed.code, listed.stderr).toBe(0);
      const after = new pg.Client({ connectionString: databaseUrl });
      await after.connect();
      try {
        const { rows } = await after.query('select count(*)::int as n from airlock_migrations');
        expect(rows[0].n).toBeGreaterThan(16);
      } finally {
        await after.end();
      }
    },
  );
});
