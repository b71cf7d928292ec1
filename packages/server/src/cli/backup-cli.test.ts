import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKernelProcess } from '../testing/kernel-process.js';
import { BUILT_CLI } from '../testing/operator-cli.js';

/** Another user than root, who file modes hold back, for the permission cases. */
const NOBODY = 65_534;
const asRoot = process.getuid?.() === 0;

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-cli-'));
// The permission cases run as nobody when the tests run as root: nobody must reach the files.
chmodSync(root, 0o755);
const dataDir = join(root, 'data');
const good = join(root, 'good.sqlite');

/** Runs the built `airlock` (as nobody under root when `unprivileged`) to its end. */
function airlock(args: string[], options: { unprivileged?: boolean } = {}) {
  const user = options.unprivileged && asRoot ? { uid: NOBODY, gid: NOBODY } : {};
  return new Promise<{ code: number; stdout: string; stderr: string }>((settle) => {
    execFile(
      process.execPath,
      [BUILT_CLI, ...args],
      { env: { ...process.env, DATABASE_URL: '', AIRLOCK_DATA_DIR: '' }, ...user },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: number }).code : 0;
        settle({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  const kernel = await startKernelProcess({ dataDir });
  try {
    expect((await airlock(['backup', good, '--data-dir', dataDir])).code).toBe(0);
  } finally {
    await kernel.stop();
  }
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('airlock backup and restore say which path is wrong and how', { timeout: 60_000 }, () => {
  it('refuses a backup into a directory that does not exist, and makes none', async () => {
    const missing = join(root, 'no-such-dir');
    const refused = await airlock(['backup', join(missing, 'x.sqlite'), '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `airlock backup: backup_directory_not_found: the directory ${missing} does not exist; ` +
        'create it first, or name x.sqlite in a directory that exists\n',
    );
    expect(existsSync(missing)).toBe(false);
  });

  it('refuses a backup named as a directory, suggesting a file in it', async () => {
    const refused = await airlock(['backup', root, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `airlock backup: backup_target_exists: ${root} is a directory; name a new file in it, such as ${join(root, 'airlock-backup.sqlite')}\n`,
    );
  });

  it('refuses a backup under a file as if it were a directory', async () => {
    const refused = await airlock(['backup', join(good, 'x.sqlite'), '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `backup_directory_not_found: ${good} is a file, not a directory`,
    );
  });

  it('refuses a backup into a directory it may not write to', async () => {
    const locked = join(root, 'locked');
    mkdirSync(locked, { mode: 0o555 });
    const refused = await airlock(['backup', join(locked, 'x.sqlite'), '--data-dir', dataDir], {
      unprivileged: true,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `airlock backup: backup_directory_not_writable: cannot write in ${locked} (permission denied); name a file in a directory you may write to\n`,
    );
  });

  it('refuses to restore a directory, a file it cannot read, or into a data directory that is a file', async () => {
    const fresh = join(root, 'fresh');
    const directory = await airlock(['restore', root, '--data-dir', fresh]);
    expect(directory.code).toBe(1);
    expect(directory.stderr).toBe(
      `airlock restore: backup_not_found: ${root} is a directory, not a backup file; name the file \`airlock backup\` wrote\n`,
    );

    const unreadable = join(root, 'unreadable.sqlite');
    writeFileSync(unreadable, 'x', { mode: 0o000 });
    const closed = await airlock(['restore', unreadable, '--data-dir', join(root, 'nobodys')], {
      unprivileged: true,
    });
    expect(closed.code).toBe(1);
    expect(closed.stderr).toBe(
      `airlock restore: backup_unreadable: cannot read ${unreadable} (permission denied)\n`,
    );

    const file = join(root, 'not-a-dir');
    writeFileSync(file, '');
    const notDir = await airlock(['restore', good, '--data-dir', file]);
    expect(notDir.code).toBe(1);
    expect(notDir.stderr).toBe(
      `airlock restore: data_dir_not_a_directory: the data directory ${file} is a file, not a directory; check --data-dir (or AIRLOCK_DATA_DIR)\n`,
    );
    expect(existsSync(fresh)).toBe(false);
  });

  it('still restores a good backup into a fresh directory', async () => {
    const restored = await airlock(['restore', good, '--data-dir', join(root, 'restored')]);
    expect(restored.stderr).toContain('restored 1 workspace(s)');
    expect(restored.code).toBe(0);
  });

  it.each([
    [
      ['backup', 'a.sqlite', 'b.sqlite'],
      'airlock backup: unexpected argument "b.sqlite" (it takes <file>; see airlock backup --help)',
    ],
    [
      ['restore', 'a.sqlite', '--force'],
      'airlock restore: unknown option --force (see airlock restore --help)',
    ],
    [
      ['backup', 'a.sqlite', '--data-dir'],
      'airlock backup: --data-dir needs a value (see airlock backup --help)',
    ],
  ])('refuses the command line %j with exit 2', async (args, message) => {
    const refused = await airlock(args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`${message}\n`);
  });
});
