import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { runLocalInProcess } from '../testing/cli-in-process.js';
import { startKernelProcess } from '../testing/kernel-process.js';
import { prlimitSkipReason, runLocalCli } from '../testing/operator-cli.js';
import { straceSkipReason } from '../testing/syscall-trace.js';

/** Another user than root, who file modes hold back, for the permission cases. */
const NOBODY = 65_534;
const asRoot = process.getuid?.() === 0;
const noPrlimit = prlimitSkipReason;
if (noPrlimit) console.warn(`[airlock tests] skipping the full-disk backup cases: ${noPrlimit}`);
const noStrace = straceSkipReason();
if (noStrace) console.warn(`[airlock tests] skipping the backup's directory sync: ${noStrace}`);

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-cli-'));
// The permission cases run as nobody when the tests run as root: nobody must reach the files.
chmodSync(root, 0o755);
const dataDir = join(root, 'data');
const good = join(root, 'good.sqlite');

/**
 * Runs `airlock` on a local store: in this process, as cli.ts runs it (runLocalInProcess), or the
 * built CLI in a child process when a case needs one (`spawned`, and always as nobody under root
 * when `unprivileged`, with a file size cap, or in another directory; see runLocalCli).
 */
function airlock(
  args: string[],
  options: { unprivileged?: boolean; maxFileBytes?: number; cwd?: string; spawned?: true } = {},
) {
  const { unprivileged, spawned, ...rest } = options;
  const user = unprivileged && asRoot ? { user: { uid: NOBODY, gid: NOBODY } } : {};
  if (!spawned && Object.keys({ ...rest, ...user }).length === 0) return runLocalInProcess(args);
  return runLocalCli(args, { ...rest, ...user });
}

beforeAll(async () => {
  const kernel = await startKernelProcess({ dataDir });
  try {
    expect((await airlock(['backup', good, '--data-dir', dataDir], { spawned: true })).code).toBe(
      0,
    );
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

  it('refuses to restore the data directory its own store, and moves nothing aside', async () => {
    const before = readdirSync(dataDir).sort();
    const itself = join(dataDir, 'airlock.sqlite');
    const refused = await airlock(['restore', itself, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `airlock restore: backup_is_the_store: ${itself} is the store of ${dataDir} itself, not a backup of it; name a file \`airlock backup\` wrote\n`,
    );
    expect(readdirSync(dataDir).sort()).toEqual(before);
  });

  it('refuses a data directory whose store is not an Airlock store, naming that store, and writes no backup', async () => {
    const garbage = join(root, 'garbage-data');
    mkdirSync(garbage);
    writeFileSync(join(garbage, 'airlock.sqlite'), Buffer.alloc(8192, 7));
    const other = join(root, 'other-data');
    mkdirSync(other);
    const foreign = new SqliteDatabase(join(other, 'airlock.sqlite'));
    foreign.exec('create table notes (body text)');
    foreign.close();
    const targets = join(root, 'targets');
    mkdirSync(targets);

    const notSqlite = await airlock(['backup', join(targets, 'g.sqlite'), '--data-dir', garbage]);
    expect(notSqlite.code).toBe(1);
    expect(notSqlite.stderr).toBe(
      `airlock backup: not_an_airlock_store: ${join(garbage, 'airlock.sqlite')} is not a SQLite database; check --data-dir (or AIRLOCK_DATA_DIR)\n`,
    );
    const notOurs = await airlock(['backup', join(targets, 'o.sqlite'), '--data-dir', other]);
    expect(notOurs.code).toBe(1);
    expect(notOurs.stderr.split('\n').at(-2)).toBe(
      `airlock backup: not_an_airlock_store: ${join(other, 'airlock.sqlite')} is a SQLite file but not an Airlock store (no airlock_migrations or workspaces table); check --data-dir (or AIRLOCK_DATA_DIR)`,
    );
    // Not even the hidden copy it was checking (.o.sqlite.partial) is left behind.
    expect(readdirSync(targets)).toEqual([]);
  });

  it.skipIf(noPrlimit !== null)(
    'says a backup or a restore ran out of room with file_error, leaving nothing behind',
    async () => {
      const targets = join(root, 'full');
      mkdirSync(targets);
      const backup = await airlock(['backup', join(targets, 'x.sqlite'), '--data-dir', dataDir], {
        maxFileBytes: 65_536,
      });
      expect(backup.code).toBe(1);
      expect(backup.stderr).toMatch(
        /^airlock backup: file_error: SQLite failed on a file: (no space left on the device|an input\/output error, such as a full disk, a file size limit or a failing device) \(SQLITE_[A-Z_]+\); check the free space and permissions of /m,
      );
      expect(backup.stderr).toContain(
        `of ${targets}, and that the store in ${dataDir} can be read`,
      );
      expect(readdirSync(targets)).toEqual([]);

      const fresh = join(root, 'full-restore');
      const restore = await airlock(['restore', good, '--data-dir', fresh], {
        maxFileBytes: 65_536,
      });
      expect(restore.code).toBe(1);
      // The copy's destination is where the room lacks, not the backup it reads.
      expect(restore.stderr).toBe(
        `airlock restore: file_error: cannot copyfile ${good} to ${join(fresh, 'restoring', 'airlock.sqlite')}: the file would pass the size limit this process may write (EFBIG)\n`,
      );
      expect(existsSync(fresh)).toBe(false);
    },
  );

  it('refuses a missing or foreign backup without making the data directory', async () => {
    const fresh = join(root, 'typo-dir');
    const missing = join(root, 'no-such-backup.sqlite');
    const notFound = await airlock(['restore', missing, '--data-dir', fresh]);
    expect(notFound.code).toBe(1);
    expect(notFound.stderr).toBe(
      `airlock restore: backup_not_found: no backup file at ${missing}\n`,
    );
    expect(existsSync(fresh)).toBe(false);

    const foreign = join(root, 'foreign.sqlite');
    writeFileSync(foreign, Buffer.alloc(4096, 1));
    const notOurs = await airlock(['restore', foreign, '--data-dir', fresh]);
    expect(notOurs.code).toBe(1);
    expect(notOurs.stderr).toContain('airlock restore: not_an_airlock_store: ');
    expect(existsSync(fresh)).toBe(false);

    // A data directory two levels below what exists: neither level is left behind.
    const typo = join(root, 'typo-parent');
    const nested = await airlock(['restore', foreign, '--data-dir', join(typo, 'deep', 'dd')]);
    expect(nested.code).toBe(1);
    expect(nested.stderr).toContain('airlock restore: not_an_airlock_store: ');
    expect(existsSync(typo)).toBe(false);
  });

  it('reads an empty AIRLOCK_DATA_DIR as unset: ./.airlock, where serve looks, not the current directory', async () => {
    const cwd = join(root, 'empty-variable');
    mkdirSync(cwd);
    const restored = await airlock(['restore', good], { cwd });
    expect(restored.code).toBe(0);
    expect(readdirSync(cwd)).toEqual(['.airlock']);
    expect(existsSync(join(cwd, '.airlock', 'airlock.sqlite'))).toBe(true);
    const copied = await airlock(['backup', join(root, 'from-default.sqlite')], { cwd });
    expect(copied.stderr).toContain('backed up 1 workspace(s)');
    expect(copied.code).toBe(0);
  });

  /**
   * Runs the CLI under strace (renames, links and syncs only); returns a check of the trace:
   * whether, after the last rename or link to `renamedTo`, the directory `dir` was synced.
   */
  function traceCli(args: string[], name: string) {
    const trace = join(root, `${name}.strace`);
    execFileSync('strace', [
      '-f',
      '-y',
      '-e',
      'trace=rename,renameat,renameat2,link,linkat,fsync,fdatasync',
      '-o',
      trace,
      process.execPath,
      ...CLI_NODE_ARGS,
      ...args,
    ]);
    const lines = readFileSync(trace, 'utf8').split('\n');
    return (renamedTo: string, dir: string) => {
      const renamed = lines.findLastIndex(
        (line) => /rename|link/.test(line) && line.includes(`"${renamedTo}"`),
      );
      expect(renamed, `a rename to ${renamedTo}`).toBeGreaterThanOrEqual(0);
      return lines
        .slice(renamed + 1)
        .some((line) => /\bf(data)?sync\(\d+</.test(line) && line.includes(`<${dir}>) = 0`));
    };
  }

  it.skipIf(noStrace !== null)(
    'syncs the directory after it renames the backup into place, before it says done',
    () => {
      const targets = join(root, 'synced');
      mkdirSync(targets);
      const target = join(targets, 'x.sqlite');
      const syncedAfter = traceCli(['backup', target, '--data-dir', dataDir], 'backup');
      expect(syncedAfter(target, targets)).toBe(true);
    },
  );

  it.skipIf(noStrace !== null)(
    'syncs the data directory, and the one the replaced store moved to, after the restore renames, before it says done',
    async () => {
      const into = join(root, 'restore-synced');
      expect((await airlock(['restore', good, '--data-dir', into])).code).toBe(0);
      const syncedAfter = traceCli(['restore', good, '--data-dir', into], 'restore');
      expect(syncedAfter(join(into, 'airlock.sqlite'), into)).toBe(true);
      const previous = readdirSync(into).find((name) => name.startsWith('before-restore-'));
      expect(previous).toBeDefined();
      const moved = join(into, previous!);
      expect(syncedAfter(join(moved, 'airlock.sqlite'), moved)).toBe(true);
    },
  );

  it('restores a store copied with its -wal (a volume snapshot) with the commits in the WAL, reading the copy only', async () => {
    // A store as a kernel leaves it while it serves, or killed: its last commits in the -wal alone.
    const live = join(root, 'live');
    mkdirSync(live);
    const store = join(live, 'airlock.sqlite');
    writeFileSync(store, readFileSync(good));
    const database = new SqliteDatabase(store);
    const snapshot = join(root, 'snapshot');
    mkdirSync(snapshot);
    try {
      database.pragma('journal_mode = WAL');
      database.pragma('wal_autocheckpoint = 0');
      database
        .prepare("insert into workspaces (id, name, created_at) values ('ws_in_wal', 'wal', 1)")
        .run();
      // The snapshot: the file, its -wal and -shm as they are on disk, the connection still open.
      for (const suffix of ['', '-wal', '-shm']) {
        writeFileSync(join(snapshot, `airlock.sqlite${suffix}`), readFileSync(`${store}${suffix}`));
      }
    } finally {
      database.close();
    }
    const copied = join(snapshot, 'airlock.sqlite');
    const files = Object.fromEntries(
      ['', '-wal', '-shm'].map((suffix) => [suffix, readFileSync(`${copied}${suffix}`)]),
    );
    expect(files['-wal']!.length).toBeGreaterThan(0);

    const into = join(root, 'from-snapshot');
    const restored = await airlock(['restore', copied, '--data-dir', into]);
    expect(restored.stderr).toContain('restored 2 workspace(s)');
    expect(restored.stderr).toContain(`with the commits in ${copied}-wal`);
    expect(restored.code).toBe(0);
    // One whole file: the WAL's frames are in it.
    expect(readdirSync(into).filter((name) => name.startsWith('airlock.sqlite'))).toEqual([
      'airlock.sqlite',
    ]);
    const back = new SqliteDatabase(join(into, 'airlock.sqlite'), { readonly: true });
    try {
      expect(back.prepare("select name from workspaces where id = 'ws_in_wal'").get()).toEqual({
        name: 'wal',
      });
    } finally {
      back.close();
    }
    // The snapshot was read, never opened: its file, -wal and -shm are as they were.
    for (const [suffix, bytes] of Object.entries(files)) {
      expect(readFileSync(`${copied}${suffix}`).equals(bytes), `airlock.sqlite${suffix}`).toBe(
        true,
      );
    }
    expect(readdirSync(snapshot).sort()).toEqual([
      'airlock.sqlite',
      'airlock.sqlite-shm',
      'airlock.sqlite-wal',
    ]);
  });

  it('still restores a good backup into a fresh directory', async () => {
    const restored = await airlock(['restore', good, '--data-dir', join(root, 'restored')], {
      spawned: true,
    });
    expect(restored.stderr).toContain('restored 1 workspace(s)');
    expect(restored.stderr).toContain('everything after the backup is undone');
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
    const refused = await airlock(args, { spawned: true });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`${message}\n`);
  });
});
