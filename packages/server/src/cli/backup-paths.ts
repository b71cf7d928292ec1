import { accessSync, constants, type Stats, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** A path `airlock backup` or `airlock restore` cannot use; `code` is stable, `message` names the path and what to do. */
export class BackupPathError extends Error {
  constructor(
    readonly code:
      | 'backup_directory_not_found'
      | 'backup_directory_not_writable'
      | 'backup_target_exists'
      | 'backup_not_found'
      | 'backup_unreadable'
      | 'data_dir_not_a_directory'
      | 'data_dir_not_writable'
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

/** True when this process may use `path` as `mode` says (root may, whatever the bits). */
function allowed(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks where a backup is to be written: a new file in a directory that exists and is writable.
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
  if (!allowed(directory, constants.W_OK | constants.X_OK)) {
    throw new BackupPathError(
      'backup_directory_not_writable',
      `cannot write in ${directory} (permission denied); name a file in a directory you may write to`,
    );
  }
}

/**
 * Checks a restore's paths: a backup file that exists and can be read, and a data
 * directory that is one (or does not exist yet: the restore makes it).
 * @throws BackupPathError naming the path and what is wrong with it.
 */
export function checkRestorePaths(options: { file: string; dataDir: string }): void {
  const file = resolve(options.file);
  const found = statOf(file);
  if (found?.isDirectory()) {
    throw new BackupPathError(
      'backup_not_found',
      `${file} is a directory, not a backup file; name the file \`airlock backup\` wrote`,
    );
  }
  if (found && !allowed(file, constants.R_OK)) {
    throw new BackupPathError('backup_unreadable', `cannot read ${file} (permission denied)`);
  }
  const dataDir = resolve(options.dataDir);
  const dir = statOf(dataDir);
  if (dir && !dir.isDirectory()) {
    throw new BackupPathError(
      'data_dir_not_a_directory',
      `the data directory ${dataDir} is a file, not a directory; check --data-dir (or AIRLOCK_DATA_DIR)`,
    );
  }
  if (dir && !allowed(dataDir, constants.W_OK | constants.X_OK)) {
    throw new BackupPathError(
      'data_dir_not_writable',
      `cannot write in the data directory ${dataDir} (permission denied); the restore puts the store there`,
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
};

/**
 * Tells a file system error (with the path it names), or SQLite's failure to
 * open a file, as a refusal that says which path and what is wrong; null for
 * any other error.
 * @param cantOpen what to check when SQLite cannot open a file (it does not say which).
 */
export function fileErrorOf(error: unknown, cantOpen: string): BackupPathError | null {
  const { code, path, syscall } = (error ?? {}) as {
    code?: unknown;
    path?: unknown;
    syscall?: unknown;
  };
  if (code === 'SQLITE_CANTOPEN') {
    return new BackupPathError(
      'file_error',
      `SQLite cannot open a file (SQLITE_CANTOPEN): ${cantOpen}`,
    );
  }
  if (typeof code !== 'string' || typeof path !== 'string' || !Object.hasOwn(REASONS, code)) {
    return null;
  }
  const doing = typeof syscall === 'string' ? `${syscall} ` : '';
  return new BackupPathError('file_error', `cannot ${doing}${path}: ${REASONS[code]} (${code})`);
}
