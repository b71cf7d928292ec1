import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLocalCli } from '../testing/operator-cli.js';
import { readBackupArgs } from './backup-args.js';
import { UsageError } from './command-line.js';
import { checkedStoreLocation } from './database-url.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-args-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('"-" is no backup file', () => {
  it.each([
    ['airlock backup', '"-" would be standard output'],
    ['airlock restore', '"-" would be standard input'],
  ] as const)('%s - is a usage error naming the stream', (command, said) => {
    expect(() => readBackupArgs(['-'], command)).toThrow(UsageError);
    expect(() => readBackupArgs(['-'], command)).toThrow(said);
  });

  it('still reaches a file named - as ./-', () => {
    expect(readBackupArgs(['./-', '--data-dir', 'd'], 'airlock backup')).toMatchObject({
      file: './-',
      dataDir: 'd',
    });
  });

  it('airlock backup - exits 2 and writes no file', { timeout: 60_000 }, async () => {
    const cwd = mkdtempSync(join(root, 'cwd-'));
    const refused = await runLocalCli(['backup', '-', '--data-dir', join(cwd, 'data')], { cwd });
    expect(refused.stderr).toContain('airlock backup: "-" would be standard output');
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('a store URL that is not postgres:// is a usage error, before anything loads', () => {
  it.each([
    [['--database-url', 'notaurl'], {}, '--database-url wants a postgres:// or postgresql:// URL'],
    [[], { DATABASE_URL: 'mysql://app:pw@db/app' }, 'DATABASE_URL wants a postgres://'],
  ])('%j with %j', (argv, env, said) => {
    expect(() => checkedStoreLocation(flagsOf(argv), 'airlock token', env)).toThrow(said);
  });

  it('keeps a postgres:// URL and the data directory as given', () => {
    expect(
      checkedStoreLocation({}, 'airlock token', { DATABASE_URL: 'postgresql://h/db' }),
    ).toEqual({
      dataDir: '.airlock',
      databaseUrl: 'postgresql://h/db',
    });
  });

  it('airlock backup with a DATABASE_URL of another database says which setting', () => {
    expect(() =>
      readBackupArgs(['b.sqlite', '--database-url', 'mysql://db/app'], 'airlock backup'),
    ).toThrow('airlock backup: --database-url wants a postgres:// or postgresql:// URL');
  });
});

/** `--name value` pairs as Node's parser reads them. */
function flagsOf(argv: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 2) values[argv[i]!.slice(2)] = argv[i + 1]!;
  return values;
}
