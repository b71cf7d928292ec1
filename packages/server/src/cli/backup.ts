import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { forTerminal } from '@airlock/core';
import { type ContinuedLog, continueAfterReplacedLog } from '../store/restored-log.js';
import { DataDirInUseError, holdDataDir } from '../store/sqlite/kernel-lock.js';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';
import {
  BackupError,
  type BackupProgress,
  backupSqliteStore,
  restoreSqliteStore,
} from '../store/sqlite/sqlite-backup.js';
import { Store } from '../store/store.js';
import {
  BackupPathError,
  checkBackupTarget,
  checkRestorePaths,
  fileErrorOf,
  storeErrorOf,
  syncDirectory,
} from './backup-paths.js';
import { parseCommandLine, storeLocationOf } from './command-line.js';
import { continuedReport, type FenceOutcome, fenceReport, fenceStore } from './fence.js';

const STORE_OPTIONS = `Store options:
  --data-dir <dir>      SQLite data directory (env AIRLOCK_DATA_DIR; default ./.airlock)
  --database-url <url>  PostgreSQL URL (env DATABASE_URL): refused, use pg_dump / pg_restore
                        (docs/operations.md, "Backup and restore")
`;

/** `airlock backup --help` */
export const BACKUP_HELP = `Usage: airlock backup <file> [store options]

Copies the SQLite store to <file> while the kernel keeps serving (SQLite's
online backup API, from a connection of its own): the copy holds everything
committed when it finished, as one consistent snapshot. Prints its progress
on stderr and, at the end, the file, its size and schema. Never overwrites a file
nor makes a directory: <file> is a new file in a directory that exists.

${STORE_OPTIONS}`;

/** `airlock restore --help` */
export const RESTORE_HELP = `Usage: airlock restore <file> [store options]

Puts a backup made by \`airlock backup\` in place as the data directory's
store. Stop the kernel first: a restore refuses while one serves the
directory. The file is checked before anything moves (an Airlock store,
intact, not from a newer Airlock), migrated to this version and fenced; the
store that was there is moved aside into <data-dir>/before-restore-<time>/.
A store file copied with its -wal (a volume snapshot) is restored with the
commits in its WAL; the file and its -wal are only read.

Fencing: a call that was granted or claimed when the backup was taken may
have run after it. Each such call fails with outcome_unknown and holds its
run until a person retries it (it crosses the approval stage again: granted,
it runs again) or abandons or stops the run; no executor claims it before.
The restore lists them.

Options:
  --no-fence            keep granted and claimed calls as the backup has them:
                        executors claim and run them again (only when nothing
                        ran after the backup, e.g. it was taken with the kernel stopped)

${STORE_OPTIONS}`;

interface Parsed {
  file: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  help: boolean;
  /** False when `restore --no-fence` keeps granted and claimed calls as the backup has them. */
  fence: boolean;
}

/**
 * Reads `airlock backup|restore <file> [store options]`.
 * @throws UsageError on an unknown option or an argument past <file>.
 */
function parse(argv: string[], command: string): Parsed {
  const { values, positionals } = parseCommandLine(argv, {
    command,
    flags: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      ...(command === 'airlock restore' ? { 'no-fence': { type: 'boolean' as const } } : {}),
    },
    operands: ['<file>'],
  });
  return {
    file: positionals[0],
    ...storeLocationOf(values, command),
    help: values.help === true,
    fence: values['no-fence'] !== true,
  };
}

function refusePostgres(command: string): never {
  throw new BackupError(
    'postgres_use_pg_dump',
    `${command} copies a SQLite store; on PostgreSQL use pg_dump -Fc and pg_restore ` +
      '(docs/operations.md, "Backup and restore")',
  );
}

/**
 * Writes a refusal, or a file the command could not use, as
 * `airlock <command>: <code>: <message>` and returns exit code 1.
 */
function refused(command: 'backup' | 'restore', error: unknown, options: Parsed): number {
  const dataDir = resolve(options.dataDir);
  const check =
    command === 'backup'
      ? `check the free space and permissions of ${dirname(resolve(options.file ?? '.'))}, and that the store in ${dataDir} can be read`
      : `check the free space and permissions of ${dataDir}`;
  const store = join(dataDir, SQLITE_FILE_NAME);
  const told =
    command === 'backup'
      ? (backupStoreError(error, store) ?? knownError(error, check))
      : knownError(error, check);
  if (!told) throw error;
  process.stderr.write(`airlock ${command}: ${told.code}: ${forTerminal(told.message)}\n`);
  return 1;
}

function knownError(error: unknown, check: string): BackupError | BackupPathError | null {
  if (error instanceof BackupError || error instanceof BackupPathError) return error;
  return fileErrorOf(error, check);
}

/**
 * A backup copies the store as it is, so a copy that is not an Airlock store, or
 * that SQLite cannot read, says so of the store in --data-dir, not of the target.
 */
function backupStoreError(error: unknown, store: string): BackupPathError | null {
  if (error instanceof BackupError && error.code === 'not_an_airlock_store') {
    return new BackupPathError(
      'not_an_airlock_store',
      `${store} is a SQLite file but not an Airlock store (no airlock_migrations or workspaces table); check --data-dir (or AIRLOCK_DATA_DIR)`,
    );
  }
  return storeErrorOf(error, store);
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Runs `airlock backup <file>`; returns the exit code. */
export async function backup(argv: string[]): Promise<number> {
  const options = parse(argv, 'airlock backup');
  if (options.help || !options.file) {
    process.stdout.write(BACKUP_HELP);
    return options.help ? 0 : 2;
  }
  const started = Date.now();
  let shown = -1;
  const show = (progress: BackupProgress) => {
    const copied = progress.totalPages - progress.remainingPages;
    const percent =
      progress.totalPages === 0 ? 100 : Math.floor((copied * 100) / progress.totalPages);
    if (percent === shown) return;
    shown = percent;
    const note = progress.oneStep
      ? ' (the store changed meanwhile: copying the rest in one step)'
      : '';
    process.stderr.write(
      `backup: ${percent}% (${copied} of ${progress.totalPages} pages)${note}\n`,
    );
  };
  try {
    if (options.databaseUrl) refusePostgres('airlock backup');
    checkBackupTarget(options.file);
    const summary = await backupSqliteStore({
      dataDir: options.dataDir,
      target: options.file,
      onProgress: show,
    });
    // The copy was renamed into place: its name, too, must survive a power cut before "done".
    syncDirectory(dirname(summary.file));
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `backed up ${summary.workspaces} workspace(s), schema ${summary.schema}, ` +
        `${megabytes(summary.bytes)} (${summary.pages} pages) in ${seconds} s\n`,
    );
    process.stdout.write(`${summary.file}\n`);
    return 0;
  } catch (error) {
    return refused('backup', error, options);
  }
}

/** Runs `airlock restore <file>`; returns the exit code. */
export async function restore(argv: string[]): Promise<number> {
  const options = parse(argv, 'airlock restore');
  if (options.help || !options.file) {
    process.stdout.write(RESTORE_HELP);
    return options.help ? 0 : 2;
  }
  let release = () => {};
  const dataDir = resolve(options.dataDir);
  const madeFrom = outermostMissing(dataDir);
  try {
    if (options.databaseUrl) refusePostgres('airlock restore');
    checkRestorePaths({ file: options.file, dataDir: options.dataDir });
    // Held while the store is swapped: a kernel that starts meanwhile is refused, not served a half-moved store.
    let runningKernel: { pid: number | null } | null = null;
    try {
      release = holdDataDir(options.dataDir);
    } catch (error) {
      if (!(error instanceof DataDirInUseError)) throw error;
      runningKernel = { pid: error.holder?.pid ?? null };
    }
    const fenced: { outcome: FenceOutcome | null } = { outcome: null };
    let continued: ContinuedLog[] = [];
    const summary = await restoreSqliteStore({
      dataDir: options.dataDir,
      file: options.file,
      runningKernel,
      // Opening migrates an older backup to this build's schema, and the fence needs it so.
      prepare: async (stagingDir, replaced) => {
        const store = await Store.open({ dataDir: stagingDir });
        try {
          // Before the fence writes its events: they, too, are numbered after the replaced log.
          if (replaced) continued = await continueAfterReplacedLog(store, replaced);
          if (options.fence) fenced.outcome = await fenceStore(store);
        } finally {
          await store.close();
        }
      },
    });
    // The renames reach the disk before the restore says done: after a power cut the restored
    // store is in place, not the one it replaced.
    if (summary.previous) syncDirectory(summary.previous);
    syncDirectory(dirname(summary.file));
    process.stderr.write(
      `restored ${summary.workspaces} workspace(s) from schema ${summary.schema} into ${summary.file}\n` +
        (summary.wal
          ? `with the commits in ${summary.wal} (the file's WAL, copied along and only read)\n`
          : '') +
        (summary.previous ? `the store that was there is now in ${summary.previous}\n` : '') +
        continuedReport(continued, summary.replacedLog) +
        (fenced.outcome
          ? fenceReport(fenced.outcome)
          : 'not fenced (--no-fence): calls granted or claimed at the backup will be claimed and run again\n') +
        'everything after the backup is undone: credentials revoked since work again, and approvals given since are gone; ' +
        'see docs/operations.md, "A restore goes back in time", before serving it\n',
    );
    return 0;
  } catch (error) {
    release();
    if (madeFrom) removeMadeDirectories(dataDir, madeFrom);
    return refused('restore', error, options);
  } finally {
    release();
  }
}

/**
 * The outermost directory on `dir`'s path that does not exist yet (`dir`
 * itself when only it is missing), or null when `dir` exists: what taking
 * its lock creates.
 */
function outermostMissing(dir: string): string | null {
  if (existsSync(dir)) return null;
  let missing = dir;
  while (dirname(missing) !== missing && !existsSync(dirname(missing))) missing = dirname(missing);
  return missing;
}

/**
 * Removes what a refused restore created to take the lock: the data
 * directory (when it holds only the lock's files) and, up to `madeFrom`,
 * each parent it made that is still empty.
 */
function removeMadeDirectories(dataDir: string, madeFrom: string): void {
  removeLockOnlyDirectory(dataDir);
  for (let dir = dataDir; dir !== madeFrom; ) {
    dir = dirname(dir);
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}

/** What taking a data directory's lock leaves in it (see store/sqlite/kernel-lock.ts). */
const LOCK_FILES = new Set(['kernel.lock', 'kernel.lock.sqlite', 'kernel.lock.sqlite-journal']);

/**
 * Removes a data directory a refused restore made (to take its lock), so a
 * refusal changes nothing; a directory holding anything else is left alone.
 */
function removeLockOnlyDirectory(dir: string): void {
  try {
    const entries = readdirSync(dir);
    if (!entries.every((name) => LOCK_FILES.has(name))) return;
    for (const name of entries) rmSync(join(dir, name), { force: true });
    rmdirSync(dir);
  } catch {
    // Gone already, or not ours to clean: the refusal itself is what the operator needs.
  }
}
