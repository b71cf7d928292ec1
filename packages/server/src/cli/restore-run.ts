import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { syncDirectory } from '../store/directory-sync.js';
import { type ContinuedLog, continueAfterReplacedLog } from '../store/restored-log.js';
import {
  DataDirInUseError,
  holdDataDir,
  KERNEL_LOCK_DATABASE,
  KERNEL_LOCK_FILE,
} from '../store/sqlite/kernel-lock.js';
import { missingSchema } from '../store/sqlite/schema-drift.js';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';
import { BackupError, restoreSqliteStore } from '../store/sqlite/sqlite-backup.js';
import { storeOpenElsewhere } from '../store/sqlite/store-in-use.js';
import { Store } from '../store/store.js';
import type { BackupArgs } from './backup-args.js';
import { type ChecksumCheck, checkChecksum } from './backup-checksum.js';
import { checkRestorePaths } from './backup-paths.js';
import { refused, refusePostgres } from './backup-run.js';
import { continuedReport, type FenceOutcome, fenceReport, fenceStore } from './fence-report.js';
import { holdStopSignals, Interrupted, type SignalSource } from './interruption.js';

/**
 * Puts the backup file in place as the data directory's store, its command
 * line read (see backup.ts); returns the exit code: 1 for a store or a file
 * it cannot use, said on stderr as `airlock restore: <code>: <message>`.
 */
export async function runRestore(
  options: BackupArgs,
  signals: SignalSource = process,
): Promise<number> {
  let release = () => {};
  let held = false;
  const dataDir = resolve(options.dataDir);
  const madeFrom = outermostMissing(dataDir);
  // Taking the lock makes its file: a refused restore takes it away again (see dropMadeLock).
  const lockMade = !existsSync(join(dataDir, KERNEL_LOCK_DATABASE));
  // Ctrl-C while the backup is copied and checked stops before the swap, with nothing left behind.
  const stop = holdStopSignals(signals);
  try {
    if (options.databaseUrl) refusePostgres('airlock restore');
    checkRestorePaths({ file: options.file, dataDir: options.dataDir });
    // Before the lock or the staging folder: a backup that is not what was backed up changes nothing.
    const checksum = await checkChecksum(options.file);
    if ('missing' in checksum) process.stderr.write(uncheckedWarning(checksum.missing));
    // Held while the store is swapped: a kernel that starts meanwhile is refused, not served a half-moved store.
    let runningKernel: { pid: number | null } | null = null;
    try {
      release = holdDataDir(options.dataDir);
      held = true;
    } catch (error) {
      if (!(error instanceof DataDirInUseError)) throw error;
      runningKernel = { pid: error.holder?.pid ?? null };
    }
    // The lock file is one file anyone can delete: the store's own lock still tells a live kernel.
    if (!runningKernel) refuseStoreInUse(join(dataDir, SQLITE_FILE_NAME));
    const fenced: { outcome: FenceOutcome | null } = { outcome: null };
    let continued: ContinuedLog[] = [];
    const summary = await restoreSqliteStore({
      dataDir: options.dataDir,
      file: options.file,
      runningKernel,
      // Opening migrates an older backup to this build's schema, and the fence needs it so.
      prepare: async (stagingDir, replaced) => {
        stop.check();
        const store = await migratedCopy(stagingDir, options.file);
        try {
          // Before anything reads or writes its rows: a fence on a table gone would fail half-way.
          await refuseMissingSchema(join(stagingDir, SQLITE_FILE_NAME), options.file);
          // Before the fence writes its events: they, too, are numbered after the replaced log.
          if (replaced) continued = await continueAfterReplacedLog(store, replaced);
          if (options.fence) fenced.outcome = await fenceStore(store);
        } finally {
          await store.close();
        }
        // The last point before the swap: past it the restore is done in one step.
        stop.check();
      },
    });
    // The renames reach the disk before the restore says done: after a power cut the restored
    // store is in place, not the one it replaced.
    if (summary.previous) syncDirectory(summary.previous);
    syncDirectory(dirname(summary.file));
    process.stderr.write(
      checkedLine(checksum) +
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
        'see docs/backup-restore.md, "A restore goes back in time", before serving it\n',
    );
    return 0;
  } catch (error) {
    if (held && lockMade) dropMadeLock(dataDir);
    release();
    if (madeFrom) removeMadeDirectories(dataDir, madeFrom);
    if (error instanceof Interrupted) {
      process.stderr.write(
        `airlock restore: ${error.code}: ${error.message} before the backup was put in place; ${dataDir} is as it was\n`,
      );
      return error.exitCode;
    }
    return refused('restore', error, options);
  } finally {
    release();
    stop.release();
  }
}

/** The warning for a backup without its checksum file: restored, its bytes unchecked. */
function uncheckedWarning(checksumFile: string): string {
  return (
    `airlock restore: warning: no checksum file ${checksumFile} beside the backup (one made before ` +
    'airlock backup wrote checksums, or copied by other means): a copy cut short or changed on its disk ' +
    "is found only where SQLite's checks see it\n"
  );
}

function checkedLine(checksum: ChecksumCheck): string {
  return 'matches' in checksum ? `checksum matches ${checksum.matches}\n` : '';
}

/**
 * Refuses a store another process has open: a kernel serving it whose ${KERNEL_LOCK_DATABASE}
 * was removed (its lock went with the file), or a backup copying it.
 * @throws BackupError `kernel_running`.
 */
function refuseStoreInUse(store: string): void {
  if (!storeOpenElsewhere(store)) return;
  throw new BackupError(
    'kernel_running',
    `another process has ${store} open (a kernel serving it, whose ${KERNEL_LOCK_DATABASE} may have been removed, ` +
      'or a backup copying it; `fuser` or `lsof` names it): stop it, then restore; nothing was changed',
  );
}

/**
 * Opens the staged copy, which migrates an older backup to this build's schema.
 * @throws BackupError `backup_corrupt` when a migration fails on the schema it finds (SQLite's
 *   SQLITE_ERROR, such as a table gone); any other failure (a full disk) as it was thrown.
 */
async function migratedCopy(stagingDir: string, file: string): Promise<Store> {
  try {
    return await Store.open({ dataDir: stagingDir });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== 'SQLITE_ERROR') throw error;
    throw new BackupError(
      'backup_corrupt',
      `${resolve(file)} could not be migrated to this version (${(error as Error).message}): it was changed after ` +
        '`airlock backup` wrote it (by hand or by another program); restore another backup',
    );
  }
}

/**
 * Refuses a backup whose schema lacks what its migration history says it has.
 * @throws BackupError `backup_corrupt` naming the first few tables, columns or indexes missing.
 */
async function refuseMissingSchema(copy: string, file: string): Promise<void> {
  const missing = await missingSchema(copy);
  if (missing.length === 0) return;
  const shown =
    missing.length > 5
      ? `${missing.slice(0, 5).join(', ')} and ${missing.length - 5} more`
      : missing.join(', ');
  throw new BackupError(
    'backup_corrupt',
    `${resolve(file)} lacks ${shown} that its recorded migrations make: it was changed after ` +
      '`airlock backup` wrote it (by hand or by another program); restore another backup',
  );
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
const LOCK_FILES = new Set([
  KERNEL_LOCK_FILE,
  KERNEL_LOCK_DATABASE,
  `${KERNEL_LOCK_DATABASE}-journal`,
]);

/**
 * Removes the lock database a refused restore made by taking the directory's
 * lock, while it still holds it, so a refusal leaves the directory as it found
 * it. A start that opens the path from then on makes a new file and waits on
 * nothing; only one that opened the old file in the instant before (and waits
 * on it) could hold a lock nobody else sees, the same narrow window the
 * removal of a data directory the restore made always had. A lock file that
 * was there before (a kernel served the directory) is never removed.
 */
function dropMadeLock(dataDir: string): void {
  for (const name of [KERNEL_LOCK_DATABASE, `${KERNEL_LOCK_DATABASE}-journal`]) {
    rmSync(join(dataDir, name), { force: true });
  }
}

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
