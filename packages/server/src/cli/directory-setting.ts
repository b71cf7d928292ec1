import { constants, existsSync, mkdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { accessRefusal, fileErrorOf } from './backup-paths.js';

/** The data directory `airlock serve` uses when neither --data-dir nor AIRLOCK_DATA_DIR names one. */
export const DEFAULT_DATA_DIR = '.airlock';

/** How a refusal names the default data directory. */
export const DEFAULT_DATA_DIR_SOURCE = 'the default data directory (--data-dir, AIRLOCK_DATA_DIR)';

/** What the file system says when a directory cannot be made or written in. */
const DIRECTORY_REFUSALS = new Set([
  'ENOENT',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'EEXIST',
  'ENAMETOOLONG',
  'ELOOP',
]);

/** SQLite's codes for a file in the data directory it may not open or write (it names no path). */
const SQLITE_OPEN_REFUSAL = /^SQLITE_(CANTOPEN|READONLY|PERM|AUTH)/;

/**
 * What is wrong with `text` as a directory a setting names, which the kernel
 * makes when missing, or null when nothing is (as far as can be told without
 * making it): a file at the path or in place of one of its parents, a parent
 * it may not search, or a directory (the path itself, or the nearest parent
 * that exists when it is missing) this process may not write in. Nothing is
 * created: a refused start changes nothing.
 */
export function directoryProblem(text: string): string | null {
  const target = resolve(text);
  for (let path = target; ; path = dirname(path)) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      // Missing (or under a file): its parent says.
      const { code } = error as NodeJS.ErrnoException;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(path) !== path) continue;
      return `cannot reach ${path} (${code ?? 'unknown error'})`;
    }
    if (!isDirectory) return `${path} is a file`;
    // The directory itself is also read (the file that names it); a parent need only take a new folder.
    const mode =
      path === target
        ? constants.R_OK | constants.W_OK | constants.X_OK
        : constants.W_OK | constants.X_OK;
    const refused = accessRefusal(path, mode);
    return refused === null ? null : `cannot write in ${path} (${refused})`;
  }
}

/** True when `path` is `dir`, lies under it, or is one of its parents. */
export function onTheWay(path: string, dir: string): boolean {
  const at = resolve(path);
  return at === dir || at.startsWith(`${dir}${sep}`) || dir.startsWith(`${at}${sep}`);
}

/**
 * The refusal of a SQLite store's start whose data directory could not be
 * made or written after {@link directoryProblem} let it through (root, to
 * whom access() grants /proc and /sys, whose mkdir still fails; the
 * default directory, not checked before start), in the words of the check
 * before start; null for any other error.
 * @param source where the directory came from (`--data-dir`, `AIRLOCK_DATA_DIR`, the default).
 */
export function dataDirFailure(error: unknown, dataDir: string, source: string): string | null {
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  if (typeof code !== 'string') return null;
  const dir = resolve(dataDir);
  let why: string | null = null;
  if (SQLITE_OPEN_REFUSAL.test(code)) {
    why = `SQLite cannot open or write its files in ${dir} (${code})`;
  } else if (DIRECTORY_REFUSALS.has(code) && typeof path === 'string' && onTheWay(path, dir)) {
    why = fileErrorOf(error, '')?.message ?? code;
  }
  if (why === null) return null;
  return `${source} wants a directory (made if missing), not "${dataDir}": ${why}; name one serve can make and write in`;
}

/**
 * What stops this process from making the missing directory `text` names, found by making it
 * and taking away what it made (a refused start changes nothing): access() grants root /proc
 * and /sys, where mkdir still fails. Made a folder at a time: Node's recursive mkdir spins for
 * good on /proc. Null when it exists or could be made.
 */
export function mkdirProblem(text: string): string | null {
  const missing: string[] = [];
  for (let path = resolve(text); !existsSync(path); path = dirname(path)) {
    if (dirname(path) === path) break;
    missing.unshift(path);
  }
  const made: string[] = [];
  try {
    for (const path of missing) {
      mkdirSync(path);
      made.unshift(path);
    }
    return null;
  } catch (error) {
    return fileErrorOf(error, '')?.message ?? String((error as { code?: unknown }).code);
  } finally {
    // Deepest first, each empty: only the folders this call made.
    for (const path of made) rmdirSync(path);
  }
}
