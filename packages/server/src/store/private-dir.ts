import { chownSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The mode of a directory the kernel creates for what it keeps (a data
 * directory, a backup's folder, retention's exports): only its owner may
 * list or open what is inside, since it holds every call's input and result.
 * A directory that already exists keeps its mode.
 */
export const PRIVATE_DIR_MODE = 0o700;

/** The mode of a file the kernel writes with what it keeps (a backup, a restored store): its owner's alone. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `dir` and any missing parents with {@link PRIVATE_DIR_MODE}, as
 * `mkdirSync(dir, { recursive: true })` does, one level at a time: Node's
 * recursive mkdir spins for ever where mkdir answers ENOENT under a parent
 * that exists (a path under /proc or /sys), and a kernel given such a data
 * directory then hung at start-up, deaf to SIGTERM.
 * @throws Error as mkdir's (ENOENT, ENOTDIR, EACCES...) for the level that failed.
 */
export function makePrivateDir(dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level, { mode: PRIVATE_DIR_MODE });
    } catch (error) {
      // Made meanwhile by another process: as good as made here.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Creates `file` empty with {@link PRIVATE_FILE_MODE} when it does not exist,
 * for SQLite to open next: SQLite creates a file with the umask's mode (0644
 * as a rule), readable by every local user where the directory lets them in,
 * and gives its -wal, -shm and -journal the mode of the file. An empty file
 * is a new database to SQLite. A file that exists keeps its mode (an
 * operator's choice), and nothing can open a file made so before it is private.
 * @throws Error from the file system (EACCES, ENOSPC...).
 */
export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * When this process runs as root, gives each of `paths` to the owner of the
 * directory `dir`: a data directory a service user owns stays usable by its
 * kernel after a command run with sudo (`airlock restore`, `airlock fence`)
 * made files in it, which would otherwise be root's (the restored store, 0600,
 * and the lock file), and the kernel could not open them. Any other user
 * gives nothing (only root may), and a path gone meanwhile is skipped.
 * @throws Error from the file system other than ENOENT.
 */
export function keepDirectoryOwner(dir: string, paths: readonly string[]): void {
  if (process.getuid?.() !== 0) return;
  const { uid, gid } = statSync(dir);
  if (uid === 0 && gid === 0) return;
  for (const path of paths) {
    try {
      chownSync(path, uid, gid);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
