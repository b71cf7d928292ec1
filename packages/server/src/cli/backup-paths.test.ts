import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../store/store.js';
import { runLocalCli } from '../testing/operator-cli.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-paths-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('airlock backup and restore refuse a path for what it is', { timeout: 60_000 }, () => {
  it('refuses a backup at a symbolic link to nothing, and writes nothing through it', async () => {
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    // A store to copy: the refusal is of the target, not of a missing store.
    await (await Store.open({ dataDir })).close();
    const pointed = join(root, 'elsewhere.sqlite');
    const link = join(root, 'link.sqlite');
    symlinkSync(pointed, link);
    const refused = await runLocalCli(['backup', link, '--data-dir', dataDir]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(
      `airlock backup: backup_target_exists: ${link} is a symbolic link (to ${pointed}); ` +
        'a backup never writes through one: name a new file\n',
    );
    expect(existsSync(pointed)).toBe(false);
  });

  it.each([
    ['a custom archive', Buffer.from('PGDMP\u0001\u000e\u0000\u0004\u0008\u0001\u0001')],
    [
      'a plain script',
      Buffer.from('--\n-- PostgreSQL database dump\n--\n\nSET statement_timeout = 0;\n'),
    ],
    ['a tar archive', Buffer.concat([Buffer.from('toc.dat'), Buffer.alloc(505)])],
  ])(
    'refuses a pg_dump output (%s), pointing at pg_restore, and makes no data directory',
    async (_kind, bytes) => {
      const dump = join(root, `airlock-${_kind.replace(/ /g, '-')}.dump`);
      writeFileSync(dump, bytes);
      const dataDir = join(root, `restored-${_kind.replace(/ /g, '-')}`);
      const refused = await runLocalCli(['restore', dump, '--data-dir', dataDir]);
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toBe(
        `airlock restore: not_an_airlock_store: ${dump} is a PostgreSQL dump (pg_dump), not a SQLite backup; ` +
          'restore it with pg_restore into a new database, then run airlock fence --database-url <it> ' +
          '--replaced-database-url <the old one> (docs/operations.md, "Backup and restore")\n',
      );
      expect(existsSync(dataDir)).toBe(false);
    },
  );
});
