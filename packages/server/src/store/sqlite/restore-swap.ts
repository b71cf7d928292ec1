import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
} from 'node:fs';
import { dirname, join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { syncDirectory } from '../directory-sync.js';
import { keepDirectoryOwner, PRIVATE_DIR_MODE } from '../private-dir.js';
import { BackupError } from './backup-error.js';
import { SQLITE_FILE_NAME } from './sqlite-backend.js';

/** What a restore puts in its staging folder: the copy, and the files SQLite makes beside it. */
const STAGED_FILES = new Set(
  ['', '-wal', '-shm', '-journal'].map((suffix) => `${SQLITE_FILE_NAME}${suffix}`),
);

/** The real path (symbolic links followed), or null when it cannot be read. */
function realPath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * Empties the way for a restore's staging folder: removes one a restore cut short left
 * (holding only what a restore puts there). A folder of that name holding anything else, or a
 * file or link of that name, is someone's own and stays; so does one holding `backup`, the
 * file being restored (a cut-short restore's copy taken for a backup), which clearing would delete.
 * @throws BackupError `restoring_dir_in_use`, having changed nothing.
 */
export function clearStaging(staging: string, backup: string): void {
  let stat: Stats;
  try {
    stat = lstatSync(staging);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return;
    throw error;
  }
  const stagingPath = stat.isDirectory() ? realPath(staging) : null;
  // Followed to its file: a link elsewhere to a file in the folder would lose that file all the same.
  const backupFile = realPath(backup);
  if (stagingPath !== null && backupFile !== null && dirname(backupFile) === stagingPath) {
    throw new BackupError(
      'restoring_dir_in_use',
      `${backup} lies in ${staging}, the folder a restore prepares the backup in and clears first; ` +
        'move the file out of the data directory, then restore it; nothing was changed',
    );
  }
  const own = stat.isDirectory()
    ? readdirSync(staging).filter((name) => !STAGED_FILES.has(name))
    : [];
  if (!stat.isDirectory() || own.length > 0) {
    const names = own.sort();
    const shown =
      names.length > 5
        ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more`
        : names.join(', ');
    const what = stat.isDirectory()
      ? `holds ${shown}, which a restore did not put there`
      : 'is a file or a link, not a folder a restore made';
    throw new BackupError(
      'restoring_dir_in_use',
      `${staging} ${what}; the restore prepares the backup in a folder of that name: ` +
        'move it out of the data directory, then restore; nothing was changed',
    );
  }
  rmSync(staging, { recursive: true, force: true });
}

/**
 * Puts a checked, prepared copy (`incoming`, without a -wal or -shm) in place as the data
 * directory's store, keeping the store that was there in `before-restore-<stamp>/`. Answers
 * that folder, or null when there was no store.
 *
 * The data directory holds a whole store at every moment, so a restore cut short (a crash, a
 * power cut) leaves either the store that was there or the restored one, never none: the old
 * store's WAL is first folded into its file, the file is hard-linked aside while it stays in
 * place, and the copy is then renamed over it in one step. A store that cannot be folded (its
 * file is not readable as SQLite) or linked (a file system without hard links) is moved aside
 * file by file before the rename, as a restore did before.
 */
export function swapInRestoredStore(options: {
  dir: string;
  incoming: string;
  stamp: string;
  /** Works on what is in place just before the rename; tests cut a restore short there. */
  beforeRename?: (() => void) | undefined;
}): string | null {
  const { dir, incoming } = options;
  const current = join(dir, SQLITE_FILE_NAME);
  let previous: string | null = null;
  if (existsSync(current)) {
    previous = join(dir, `before-restore-${options.stamp}`);
    mkdirSync(previous, { mode: PRIVATE_DIR_MODE });
    keepAside(current, join(previous, SQLITE_FILE_NAME));
    syncDirectory(previous);
  }
  // Restored by root into a service user's directory, the store stays its kernel's to open.
  keepDirectoryOwner(dir, [incoming, ...(previous ? [previous] : [])]);
  options.beforeRename?.();
  renameSync(incoming, current);
  syncDirectory(dir);
  return previous;
}

/** Keeps the store at `current` also at `aside`, whole; see {@link swapInRestoredStore}. */
function keepAside(current: string, aside: string): void {
  if (foldWal(current)) {
    try {
      linkSync(current, aside);
      // The file is whole now: its emptied -wal and -shm must not meet the copy renamed in.
      for (const suffix of ['-wal', '-shm']) rmSync(`${current}${suffix}`, { force: true });
      return;
    } catch {
      rmSync(aside, { force: true });
    }
  }
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(`${current}${suffix}`)) renameSync(`${current}${suffix}`, `${aside}${suffix}`);
  }
}

/** Folds a store's WAL into its file; false when the file cannot be opened or folded. */
function foldWal(file: string): boolean {
  let database: SqliteDatabase.Database | undefined;
  try {
    database = new SqliteDatabase(file, { fileMustExist: true });
    const [done] = database.pragma('wal_checkpoint(TRUNCATE)') as {
      busy: number;
      log: number;
      checkpointed: number;
    }[];
    return done !== undefined && done.busy === 0 && done.log === done.checkpointed;
  } catch {
    return false;
  } finally {
    database?.close();
  }
}
