import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLocalCli } from '../testing/operator-cli.js';
import { reachedImports } from '../testing/static-imports.js';

/** What a module loads before its first line runs: the packages, and this package's own modules. */
const reached = (entry: string) => reachedImports(entry, join(import.meta.dirname, '..'));

// A usage error is told at Node's start-up cost only if the store, SQLite and the kernel load
// after argv is read: backup-args.ts and fence-args.ts read it, and backup-run.ts,
// restore-run.ts and fence-run.ts, loaded once it reads right, do the work.
describe('backup, restore and fence read their command line before the store loads', () => {
  it.each(['backup', 'fence'])('%s.ts reaches no store, kernel or driver', (name) => {
    const { packages, modules } = reached(join(import.meta.dirname, `${name}.ts`));
    expect(packages.filter((name) => name !== '@airlock/core/command-line')).toEqual([]);
    expect(modules.filter((module) => !module.startsWith('cli/'))).toEqual([]);
  });
});

const root = mkdtempSync(join(tmpdir(), 'airlock-store-usage-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a command line backup, restore or fence refuses says why, exit 2, nothing made', {
  timeout: 60_000,
}, () => {
  it.each([
    [['backup', '--bogus'], 'airlock backup: unknown option --bogus (see airlock backup --help)\n'],
    [
      ['backup', 'a.sqlite', 'b.sqlite'],
      'airlock backup: unexpected argument "b.sqlite" (it takes <file>; see airlock backup --help)\n',
    ],
    [
      ['restore', '--data-dir', '', 'a.sqlite'],
      'airlock restore: --data-dir is empty: give it a value, or leave the flag out\n',
    ],
    [['fence', '--bogus'], 'airlock fence: unknown option --bogus (see airlock fence --help)\n'],
    [
      ['fence', 'x'],
      'airlock fence: unexpected argument "x" (it takes no arguments; see airlock fence --help)\n',
    ],
    [
      ['fence', '--replaced-database-url', 'postgres://h/db'],
      'airlock fence: --replaced-database-url numbers a PostgreSQL store on after the one it replaced; ' +
        'give the restored database with --database-url (on SQLite, airlock restore does this by itself)\n',
    ],
    [
      ['fence', '--database-url', 'mysql://app:s3cret@db.example/app'],
      'airlock fence: --database-url wants a postgres:// or postgresql:// URL, not "mysql://…@db.example/app"\n',
    ],
    [
      ['fence', '--database-url', 'mysql://db.example/app?password=s3cret'],
      'airlock fence: --database-url wants a postgres:// or postgresql:// URL, not "mysql://db.example/app?…"\n',
    ],
    [
      ['fence', '--database-url', 'postgres://app:s3cret@[::1/db'],
      'airlock fence: --database-url is not a URL the PostgreSQL driver can read: "postgres://…@[::1/db"\n',
    ],
    [
      [
        'fence',
        '--database-url',
        'postgres://h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem',
      ],
      'airlock fence: --database-url names an sslrootcert file the PostgreSQL driver cannot read: /nonexistent/ca.pem (ENOENT)\n',
    ],
    [
      ['token', 'list', '--database-url', 'postgres://h/db?port=five'],
      'airlock token: --database-url wants a port number in its port parameter, not "five"\n',
    ],
    [
      ['fence', '--database-url', 'postgres://h/db', '--replaced-database-url', 'olddb'],
      'airlock fence: --replaced-database-url wants a postgres:// or postgresql:// URL, not "olddb"\n',
    ],
  ])('airlock %j', async (args, said) => {
    const cwd = mkdtempSync(join(root, 'cwd-'));
    const outcome = await runLocalCli(args, { cwd });
    expect(outcome.stderr).toBe(said);
    expect(outcome.code).toBe(2);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it.each([
    ['backup', 'Usage: airlock backup <file>'],
    ['restore', 'Usage: airlock restore <file>'],
  ])('airlock %s without <file> prints its help, exit 2', async (command, usage) => {
    const cwd = mkdtempSync(join(root, 'cwd-'));
    const outcome = await runLocalCli([command], { cwd });
    expect(outcome.stdout.startsWith(usage)).toBe(true);
    expect(outcome.code).toBe(2);
    expect(readdirSync(cwd)).toEqual([]);
  });
});
