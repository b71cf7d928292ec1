import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { forTerminal } from '@airlock/core/command-line';
import { syncDirectory } from '../store/directory-sync.js';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';
import {
  BackupError,
  type BackupProgress,
  backupSqliteStore,
} from '../store/sqlite/sqlite-backup.js';
import type { BackupArgs } from './backup-args.js';
import { writeChecksum } from './backup-checksum.js';
import {
  BackupPathError,
  checkBackupTarget,
  errnoReason,
  fileErrorOf,
  storeErrorOf,
} from './backup-paths.js';
import { onTheWay } from './directory-setting.js';
import { holdStopSignals, Interrupted, type SignalSource } from './interruption.js';

/**
 * Refuses a PostgreSQL store: backup and restore copy SQLite files.
 * @throws BackupError `postgres_use_pg_dump`.
 */
export function refusePostgres(command: string): never {
  throw new BackupError(
    'postgres_use_pg_dump',
    `${command} copies a SQLite store; on PostgreSQL use pg_dump -Fc and pg_restore ` +
      '(docs/backup-restore.md)',
  );
}

/**
 * Writes a refusal, or a file the command could not use, as
 * `airlock <command>: <code>: <message>` and returns exit code 1.
 */
export function refused(
  command: 'backup' | 'restore',
  error: unknown,
  options: BackupArgs,
): number {
  const dataDir = resolve(options.dataDir);
  const check =
    command === 'backup'
      ? `check the free space and permissions of ${dirname(resolve(options.file))}, and that the store in ${dataDir} can be read`
      : `check the free space and permissions of ${dataDir}`;
  const store = join(dataDir, SQLITE_FILE_NAME);
  const told =
    command === 'backup'
      ? (backupStoreError(error, store) ??
        directoryRefusal(error, dirname(resolve(options.file)), 'backup') ??
        knownError(error, check))
      : (directoryRefusal(error, dataDir, 'restore') ?? knownError(error, check));
  if (!told) throw error;
  process.stderr.write(`airlock ${command}: ${told.code}: ${forTerminal(told.message)}\n`);
  return 1;
}

/** What the file system says when a file or directory cannot be made in a directory. */
const CANNOT_WRITE = new Set(['ENOENT', 'EACCES', 'EPERM', 'EROFS']);

/**
 * A file the command could not make in the directory it writes (the backup's
 * partial copy beside its target; the data directory a restore makes or
 * writes in), told as the check before the copy tells it: root passes that
 * check on /proc and /sys, whose open and mkdir still fail. Null otherwise.
 */
function directoryRefusal(
  error: unknown,
  directory: string,
  command: 'backup' | 'restore',
): BackupPathError | null {
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  if (typeof code !== 'string' || !CANNOT_WRITE.has(code) || typeof path !== 'string') return null;
  const reason = `${errnoReason(code) ?? code}, ${code}`;
  if (command === 'backup') {
    if (dirname(resolve(path)) !== directory) return null;
    return new BackupPathError(
      'backup_directory_not_writable',
      `cannot write in ${directory} (${reason}); name a file in a directory you may write to`,
    );
  }
  if (!onTheWay(path, directory)) return null;
  return new BackupPathError(
    'data_dir_not_writable',
    `cannot write in the data directory ${directory} (${reason}); the restore puts the store there`,
  );
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
  // The copy is the store page for page: its damage is the store's, and no backup was written.
  if (error instanceof BackupError && error.code === 'backup_corrupt' && error.damage) {
    return new BackupPathError(
      'store_corrupt',
      `${store} is damaged (SQLite's integrity check: ${error.damage}); no backup was written; ` +
        "stop the kernel, then restore the last good backup or copy the rows out with sqlite3's .recover",
    );
  }
  return storeErrorOf(error, store);
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Copies the store to the backup file, its command line read (see
 * backup.ts); returns the exit code: 1 for a store or a file it cannot use,
 * said on stderr as `airlock backup: <code>: <message>`.
 */
export async function runBackup(
  options: BackupArgs,
  signals: SignalSource = process,
): Promise<number> {
  const started = Date.now();
  let shown = -1;
  // Ctrl-C mid-copy stops at the next step, and the partial copy goes (no hidden file left beside the target).
  const stop = holdStopSignals(signals);
  const show = (progress: BackupProgress) => {
    stop.check();
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
    let checksum: string;
    try {
      checksum = await writeChecksum(summary.file);
    } catch (error) {
      // A backup restore cannot check is not reported done: none is left without its checksum.
      rmSync(summary.file, { force: true });
      throw error;
    }
    // The copy and its checksum were renamed into place: their names, too, must survive a power cut before "done".
    syncDirectory(dirname(summary.file));
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `backed up ${summary.workspaces} workspace(s), schema ${summary.schema}, ` +
        `${megabytes(summary.bytes)} (${summary.pages} pages) in ${seconds} s; its SHA-256 in ${checksum}\n`,
    );
    process.stdout.write(`${summary.file}\n`);
    return 0;
  } catch (error) {
    if (error instanceof Interrupted) {
      process.stderr.write(
        `airlock backup: ${error.code}: ${error.message} before the copy was whole; no backup was written, and the partial copy was removed\n`,
      );
      return error.exitCode;
    }
    return refused('backup', error, options);
  } finally {
    stop.release();
  }
}
