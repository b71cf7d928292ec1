import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** One file a command means to write. */
export interface PlannedWrite {
  path: string;
  content: string | Buffer;
  /** The file's mode (default: the process's umask); also set on a file that exists. */
  mode?: number | undefined;
  /** The mode of the directories it creates. */
  dirMode?: number | undefined;
}

/** A failure of the file system, as one sentence naming the file (no raw `EACCES: …, open '…'`). */
export function fileError(path: string, error: unknown): Error {
  const code = (error as { code?: string }).code;
  const why =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'EISDIR'
        ? 'it is a directory'
        : code === 'ENOTDIR'
          ? 'a part of its path is not a directory'
          : code === 'ENOENT'
            ? isDanglingLink(path)
              ? 'it is a link to a file that does not exist'
              : 'it does not exist'
            : code === 'EROFS'
              ? 'the file system is read-only'
              : ((error as Error).message ?? String(error));
  return new Error(`cannot use ${path}: ${why}`);
}

/** The sentence every refusal of install and uninstall ends with: they refuse before they write. */
const UNCHANGED = 'nothing was changed';

/** The error a refused command reports: its reason, then that nothing was changed. */
export function refused(error: unknown): Error {
  const message = (error as Error).message ?? String(error);
  return new Error(message.endsWith(UNCHANGED) ? message : `${message}; ${UNCHANGED}`);
}

/**
 * Reads a text file, or null when there is none.
 * @throws Error naming the file when it exists but cannot be read.
 */
export function readTextFile(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT' && !isDanglingLink(path)) return null;
    throw fileError(path, error);
  }
}

/** A link whose target is gone: reading it says ENOENT, yet writing it would create the target. */
function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Checks that a write would be allowed, without writing: the file, or the directory it goes to. */
function checkWritable(path: string): void {
  let probe = path;
  while (!existsSync(probe)) {
    const parent = dirname(probe);
    if (parent === probe) break;
    probe = parent;
  }
  try {
    if (probe !== path && !statSync(probe).isDirectory()) {
      throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    }
    if (probe === path && statSync(path).isDirectory()) {
      throw Object.assign(new Error('a directory'), { code: 'EISDIR' });
    }
    accessSync(probe, constants.W_OK);
  } catch (error) {
    throw fileError(path, error);
  }
}

/**
 * Writes the files, all or none: each is checked first, and a write that
 * fails puts back the files already written (and removes the directories it
 * made).
 * @throws Error naming the file that could not be written.
 */
export function writeAll(writes: readonly PlannedWrite[]): void {
  for (const write of writes) checkWritable(write.path);
  const undo: (() => void)[] = [];
  try {
    for (const write of writes) {
      const made = mkdirSync(dirname(write.path), {
        recursive: true,
        ...(write.dirMode === undefined ? {} : { mode: write.dirMode }),
      });
      if (made !== undefined) undo.push(() => removeEmptyDirs(made, dirname(write.path)));
      const previous = existsSync(write.path) ? readFileSync(write.path) : null;
      const previousMode = previous === null ? null : statSync(write.path).mode & 0o7777;
      undo.push(() => {
        if (previous === null) unlinkSync(write.path);
        else {
          writeFileSync(write.path, previous);
          if (previousMode !== null) chmodSync(write.path, previousMode);
        }
      });
      writeFileSync(
        write.path,
        write.content,
        write.mode === undefined ? {} : { mode: write.mode },
      );
      if (write.mode !== undefined) chmodSync(write.path, write.mode);
    }
  } catch (error) {
    for (const step of undo.reverse()) {
      try {
        step();
      } catch {
        // Best effort: the first failure is the one to report.
      }
    }
    throw fileError((error as { path?: string }).path ?? 'a file', error);
  }
}

/** Removes the directories `mkdirSync` made, deepest first, if they are still empty. */
function removeEmptyDirs(top: string, deepest: string): void {
  for (let dir = deepest; dir.length >= top.length; dir = dirname(dir)) {
    rmdirSync(dir);
    if (dir === top) break;
  }
}
