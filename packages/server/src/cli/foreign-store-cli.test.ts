import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';

const run = promisify(execFile);

/** Runs the real `airlock` CLI; returns its exit code and output. */
async function airlock(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [...CLI_NODE_ARGS, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The commands that open a store a kernel made before and must never make one. */
const COMMANDS = [
  ['fence', 'airlock fence'],
  ['token list', 'airlock token'],
] as const;

describe('a command pointed at a data directory holding another program’s SQLite file', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'airlock-foreign-'));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** A directory whose airlock.sqlite is a database of someone else's (rollback journal). */
  function foreignDir(name: string): { dir: string; file: string } {
    const dir = join(root, name);
    mkdirSync(dir);
    const file = join(dir, 'airlock.sqlite');
    const database = new SqliteDatabase(file);
    database.exec(
      "create table mine (id integer primary key, note text); insert into mine (note) values ('kept')",
    );
    database.close();
    return { dir, file };
  }

  it.each(COMMANDS)(
    '%s refuses it as not_an_airlock_store and leaves it byte for byte',
    async (command, prefix) => {
      const { dir, file } = foreignDir(command.replace(' ', '-'));
      const before = readFileSync(file);
      const result = await airlock([...command.split(' '), '--data-dir', dir]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(`^${prefix}: not_an_airlock_store: ${file} has no Airlock tables`),
      );
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(readFileSync(file).equals(before)).toBe(true);
      // Nothing made beside it: no WAL switched on, no lock taken on the directory.
      expect(readdirSync(dir)).toEqual(['airlock.sqlite']);
    },
  );

  it.each(COMMANDS)(
    '%s refuses a file that is no SQLite database, with the same code',
    async (command, prefix) => {
      const dir = join(root, `text-${command.replace(' ', '-')}`);
      mkdirSync(dir);
      const file = join(dir, 'airlock.sqlite');
      writeFileSync(file, 'not a database, just some notes\n'.repeat(200));
      const result = await airlock([...command.split(' '), '--data-dir', dir]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(`^${prefix}: not_an_airlock_store: ${file} is not a SQLite database`),
      );
      expect(readFileSync(file, 'utf8')).toBe('not a database, just some notes\n'.repeat(200));
    },
  );
});

const skip = await postgresSkipReason();

describe.skipIf(skip !== null)(
  'a command pointed at a PostgreSQL database of another program',
  () => {
    it('token list refuses it as not_an_airlock_store and creates no table in it', async () => {
      const url = await freshPostgresDatabase();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query('create table mine (id int)');
        const result = await airlock(['token', 'list', '--database-url', url]);
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /^airlock token: not_an_airlock_store: postgres .* has no Airlock tables/,
        );
        const tables = await client.query(
          "select table_name from information_schema.tables where table_schema = 'public' order by 1",
        );
        expect(tables.rows.map((row) => row.table_name)).toEqual(['mine']);
      } finally {
        await client.end();
      }
    });
  },
);
