import {
  accessSync,
  closeSync,
  constants,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  type Stats,
  statSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';

/** A path `airlock backup` or `airlock restore` cannot use; `code` is stable, `message` names the path and what to do. */
export class BackupPathError extends Error {
  constructor(
    readonly code:
      | 'backup_directory_not_found'
      | 'backup_directory_not_writable'
      | 'backup_target_exists'
      | 'backup_not_found'
      | 'backup_unreadable'
      | 'backup_is_the_store'
      | 'backup_corrupt'
      | 'backup_checksum_mismatch'
      | 'data_dir_not_a_directory'
      | 'data_dir_not_writable'
      | 'not_an_airlock_store'
      | 'store_corrupt'
      | 'file_error',
    message: string,
  ) {
    super(message);
    this.name = 'BackupPathError';
  }
}

function statOf(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** How the files pg_dump writes begin: a custom archive, a tar archive (its first member), a plain script. */
const POSTGRES_DUMP_HEADS = ['PGDMP', 'toc.dat', '--\n-- PostgreSQL database dump'];

/** True when `file` begins as a pg_dump output does; false too when it cannot be read. */
function isPostgresDump(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(64);
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('latin1');
    return POSTGRES_DUMP_HEADS.some((start) => text.startsWith(start));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Why this process may not use `path` as `mode` says ("permission denied",
 * "read-only file system"), or null when it may (root may, whatever the bits).
 */
export function accessRefusal(path: string, mode: number): string | null {
  try {
    accessSync(path, mode);
    return null;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && Object.hasOwn(REASONS, code)
      ? (REASONS[code] as string)
      : 'permission denied';
  }
}

/**
 * Checks where a backup is to be written: a new file (not a symbolic link, even one to nothing)
 * in a directory that exists and is writable.
 * @throws BackupPathError naming the path and what is wrong with it.
 */
export function checkBackupTarget(file: string): void {
  const target = resolve(file);
  if (statOf(target)?.isDirectory()) {
    throw new BackupPathError(
      'backup_target_exists',
      `${target} is a directory; name a new file in it, such as ${join(target, 'airlock-backup.sqlite')}`,
    );
  }
  // A link whose file does not exist yet: the copy would land at its name, not where it points.
  if (lstatOrNull(target)?.isSymbolicLink()) {
    throw new BackupPathError(
      'backup_target_exists',
      `${target} is a symbolic link (to ${readlinkSync(target)}); a backup never writes through one: name a new file`,
    );
  }
  const directory = dirname(target);
  const found = statOf(directory);
  if (!found) {
    throw new BackupPathError(
      'backup_directory_not_found',
      `the directory ${directory} does not exist; create it first, or name ${basename(target)} in a directory that exists`,
    );
  }
  if (!found.isDirectory()) {
    throw new BackupPathError(
      'backup_directory_not_found',
      `${directory} is a file, not a directory; name the backup file in a directory`,
    );
  }
  const cannotWrite = accessRefusal(directory, constants.W_OK | constants.X_OK);
  if (cannotWrite) {
    throw new BackupPathError(
      'backup_directory_not_writable',
      `cannot write in ${directory} (${cannotWrite}); name a file in a directory you may write to`,
    );
  }
}

/**
 * Checks a restore's paths: a backup file that exists, can be read and is no
 * PostgreSQL dump, and a data directory that is one (or does not exist yet:
 * the restore makes it) and whose own store the file is not.
 * @throws BackupPathError naming the path and what is wrong with it.
 */
export function checkRestorePaths(options: { file: string; dataDir: string }): void {
  const file = resolve(options.file);
  const found = statOf(file);
  if (!found) {
    // Before the restore takes the data directory's lock: a refusal makes no directory.
    throw new BackupPathError('backup_not_found', `no backup file at ${file}`);
  }
  if (found.isDirectory()) {
    throw new BackupPathError(
      'backup_not_found',
      `${file} is a directory, not a backup file; name the file \`airlock backup\` wrote`,
    );
  }
  const cannotRead = accessRefusal(file, constants.R_OK);
  if (cannotRead) {
    throw new BackupPathError('backup_unreadable', `cannot read ${file} (${cannotRead})`);
  }
  // SQLite reads an empty file as an empty database: said so, it looked like another program's file.
  if (found.size === 0) {
    throw new BackupPathError(
      'backup_corrupt',
      `${file} is empty (0 bytes): a copy cut short, or made on a full disk; restore another backup`,
    );
  }
  if (isPostgresDump(file)) {
    throw new BackupPathError(
      'not_an_airlock_store',
      `${file} is a PostgreSQL dump (pg_dump), not a SQLite backup; restore it with pg_restore into a new database, ` +
        'then run airlock fence --database-url <it> --replaced-database-url <the old one> ' +
        '(docs/backup-restore.md)',
    );
  }
  const dataDir = resolve(options.dataDir);
  const dir = statOf(dataDir);
  if (dir && !dir.isDirectory()) {
    throw new BackupPathError(
      'data_dir_not_a_directory',
      `the data directory ${dataDir} is a file, not a directory; check --data-dir (or AIRLOCK_DATA_DIR)`,
    );
  }
  const cannotWrite = dir ? accessRefusal(dataDir, constants.W_OK | constants.X_OK) : null;
  if (cannotWrite) {
    throw new BackupPathError(
      'data_dir_not_writable',
      `cannot write in the data directory ${dataDir} (${cannotWrite}); the restore puts the store there`,
    );
  }
  // Restoring the store onto itself would move it aside and fence its live granted calls, undoing nothing.
  const store = statOf(join(dataDir, SQLITE_FILE_NAME));
  if (store && store.dev === found.dev && store.ino === found.ino) {
    throw new BackupPathError(
      'backup_is_the_store',
      `${file} is the store of ${dataDir} itself, not a backup of it; name a file \`airlock backup\` wrote`,
    );
  }
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOENT: 'no such file or directory',
  EEXIST: 'it already exists',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  EIO: 'an input/output error',
  EFBIG: 'the file would pass the size limit this process may write',
};

/** Why the file system refused, as said to an operator (`permission denied`), or undefined. */
export function errnoReason(code: string): string | undefined {
  return Object.hasOwn(REASONS, code) ? REASONS[code] : undefined;
}

/** SQLite's codes for a file it could not write or read, as said to an operator. */
const SQLITE_REASONS: Record<string, string> = {
  SQLITE_FULL: 'no space left on the device',
  SQLITE_IOERR: 'an input/output error, such as a full disk, a file size limit or a failing device',
  SQLITE_READONLY: 'the file or its file system is read-only',
  SQLITE_PERM: 'permission denied',
  SQLITE_CANTOPEN: 'a file could not be opened',
};

/**
 * Tells SQLite's refusal to read the store a backup copies as a refusal that
 * names the store; null for any other error.
 */
export function storeErrorOf(error: unknown, store: string): BackupPathError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_NOTADB') {
    return new BackupPathError(
      'not_an_airlock_store',
      `${store} is not a SQLite database; check --data-dir (or AIRLOCK_DATA_DIR)`,
    );
  }
  if (code === 'SQLITE_CORRUPT') {
    return new BackupPathError(
      'store_corrupt',
      `${store} is damaged (SQLITE_CORRUPT); restore the last good backup, or copy the rows out with sqlite3's .recover`,
    );
  }
  return null;
}

/**
 * Tells a file system error (with the path it names), or SQLite's failure to
 * open, write or read a file, as a refusal that says which path and what is
 * wrong; null for any other error.
 * @param check what to check when SQLite fails on a file (it does not say which).
 */
export function fileErrorOf(error: unknown, check: string): BackupPathError | null {
  const { code, path, dest, syscall } = (error ?? {}) as {
    code?: unknown;
    path?: unknown;
    dest?: unknown;
    syscall?: unknown;
  };
  if (typeof code !== 'string') return null;
  // SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED, ...: the extended codes share their family's reason.
  const family = code.match(/^SQLITE_[A-Z]+/)?.[0];
  if (family !== undefined && Object.hasOwn(SQLITE_REASONS, family)) {
    return new BackupPathError(
      'file_error',
      `SQLite failed on a file: ${SQLITE_REASONS[family]} (${code}); ${check}`,
    );
  }
  if (typeof path !== 'string' || !Object.hasOwn(REASONS, code)) return null;
  const doing = typeof syscall === 'string' ? `${syscall} ` : '';
  // A copy names its source as path: the destination is where the space or the permission lacks.
  const to = typeof dest === 'string' ? ` to ${dest}` : '';
  return new BackupPathError(
    'file_error',
    `cannot ${doing}${path}${to}: ${REASONS[code]} (${code})`,
  );
}
