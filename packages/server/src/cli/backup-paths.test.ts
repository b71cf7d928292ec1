import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../store/store.js';
import { runLocalInProcess } from '../testing/cli-in-process.js';
import { runLocalCli } from '../testing/operator-cli.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-paths-'));
const readOnly = join(root, 'read-only');
mkdirSync(readOnly);

/** A read-only file system: a tmpfs mounted ro, which only root (with the right to mount) can make. */
function readOnlySkipReason(): string | null {
  if (process.platform !== 'linux') return 'tmpfs mounts need Linux';
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,ro', 'tmpfs', readOnly]);
  if (mounted.error) return `mount could not run (${mounted.error.message})`;
  if (mounted.status !== 0) return `mount -t tmpfs refused: ${mounted.stderr.toString().trim()}`;
  return null;
}
const noReadOnly = readOnlySkipReason();
if (noReadOnly)
  console.warn(`[airlock tests] skipping the read-only file system cases: ${noReadOnly}`);
afterAll(() => {
  if (!noReadOnly) execFileSync('umount', [readOnly]);
  rmSync(root, { recursive: true, force: true });
});

describe('airlock backup and restore refuse a path for what it is', { timeout: 60_000 }, () => {
  it('refuses a backup at a symbolic link to nothing, and writes nothing through it', async () => {
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    // A store to copy: the refusal is of the target, not of a missing store.
    await (await Store.open({ dataDir })).close();
    const pointed = join(root, 'elsewhere.sqlite');
    const link = join(root, 'link.sqlite');
    symlinkSync(pointed, link);
    // The real CLI in a child process; the other cases run the command in-process, as cli.ts does.
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
      const refused = await runLocalInProcess(['restore', dump, '--data-dir', dataDir]);
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toBe(
        `airlock restore: not_an_airlock_store: ${dump} is a PostgreSQL dump (pg_dump), not a SQLite backup; ` +
          'restore it with pg_restore into a new database, then run airlock fence --database-url <it> ' +
          '--replaced-database-url <the old one> (docs/backup-restore.md)\n',
      );
      expect(existsSync(dataDir)).toBe(false);
    },
  );

  it.skipIf(noReadOnly !== null)(
    'says a read-only file system is one, not a permission denied',
    async () => {
      const backup = await runLocalInProcess([
        'backup',
        join(readOnly, 'b.sqlite'),
        '--data-dir',
        root,
      ]);
      expect(backup).toMatchObject({ code: 1, stdout: '' });
      expect(backup.stderr).toBe(
        `airlock backup: backup_directory_not_writable: cannot write in ${readOnly} (read-only file system); ` +
          'name a file in a directory you may write to\n',
      );
      const dump = join(root, 'not-a-dump.sqlite');
      writeFileSync(dump, 'SQLite format 3\u0000');
      const restore = await runLocalInProcess(['restore', dump, '--data-dir', readOnly]);
      expect(restore).toMatchObject({ code: 1, stdout: '' });
      expect(restore.stderr).toBe(
        `airlock restore: data_dir_not_writable: cannot write in the data directory ${readOnly} ` +
          '(read-only file system); the restore puts the store there\n',
      );
    },
  );

  // Root may write in /proc as far as access() tells: the file's own open or mkdir fails there.
  it('refuses a directory in /proc, where no file can be made, naming it (root too)', async () => {
    const dataDir = join(root, 'data-proc');
    mkdirSync(dataDir);
    await (await Store.open({ dataDir })).close();
    const backup = await runLocalInProcess([
      'backup',
      '/proc/airlock-b.sqlite',
      '--data-dir',
      dataDir,
    ]);
    expect(backup).toMatchObject({ code: 1, stdout: '' });
    expect(backup.stderr).toMatch(
      /^airlock backup: backup_directory_not_writable: cannot write in \/proc \([^)]+\); name a file in a directory you may write to\n$/,
    );
    const good = join(root, 'good-proc.sqlite');
    expect((await runLocalInProcess(['backup', good, '--data-dir', dataDir])).code).toBe(0);
    const restore = await runLocalInProcess([
      'restore',
      good,
      '--data-dir',
      '/proc/airlock-restored',
    ]);
    expect(restore).toMatchObject({ code: 1, stdout: '' });
    expect(restore.stderr).toMatch(
      /^airlock restore: data_dir_not_writable: cannot write in the data directory \/proc\/airlock-restored \([^)]+\); the restore puts the store there\n$/,
    );
  });

  it("refuses an empty backup file as a copy cut short, not as another program's file", async () => {
    const empty = join(root, 'empty.sqlite');
    writeFileSync(empty, '');
    const dataDir = join(root, 'restored-empty');
    const refused = await runLocalInProcess(['restore', empty, '--data-dir', dataDir]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(
      `airlock restore: backup_corrupt: ${empty} is empty (0 bytes): a copy cut short, or made on a full disk; restore another backup\n`,
    );
    expect(existsSync(dataDir)).toBe(false);
  });
});
