import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { keepDirectoryOwner, makePrivateDir } from '../private-dir.js';

/** The file that says which kernel holds a SQLite data directory (pid, host, start time). */
export const KERNEL_LOCK_FILE = 'kernel.lock';

/**
 * The file whose exclusive SQLite lock is the hold itself. SQLite's unix VFS
 * locks it with fcntl, which the OS lets go when the holder dies (kill -9, OOM),
 * whatever pid or host the next start has. Never removed: a process waiting on
 * the old file and one creating a new one could both hold "it".
 */
export const KERNEL_LOCK_DATABASE = 'kernel.lock.sqlite';

/** Long enough for starts racing on a free directory to settle on one winner. */
const SETTLE_MS = 1_000;

/** Who holds a data directory: the kernel process that wrote kernel.lock. */
export interface KernelLockHolder {
  pid: number;
  host: string;
  started_at: string;
}

/** A data directory another open hold (in this process or another) has; `code` is stable. */
export class DataDirInUseError extends Error {
  readonly code = 'data_dir_in_use';
  constructor(
    readonly dataDir: string,
    /** What kernel.lock says, or null when the holder has not written it (yet). */
    readonly holder: KernelLockHolder | null,
  ) {
    super(`${describeHolder(holder)} serves ${dataDir}; stop it first, or give another --data-dir`);
    this.name = 'DataDirInUseError';
  }
}

function describeHolder(holder: KernelLockHolder | null): string {
  if (!holder) return `a kernel (it has not written its pid to ${KERNEL_LOCK_FILE})`;
  const where = holder.host === hostname() ? '' : ` on host ${holder.host}`;
  return `a kernel (pid ${holder.pid}${where}, started ${holder.started_at})`;
}

function readHolder(file: string): KernelLockHolder | null {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as KernelLockHolder;
    return Number.isSafeInteger(holder.pid) ? holder : null;
  } catch {
    return null;
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/** How often a serving kernel checks that its kernel.lock.sqlite is still the file it locked. */
export const LOCK_WATCH_MS = 2_000;

/** What a serving kernel is told when its lock file was removed under it. */
export interface LockWatch {
  /** The file was gone or replaced, and this process locked it again. */
  retaken(): void;
  /** The file was gone or replaced, and another process holds the new one. */
  lost(error: DataDirInUseError): void;
}

/**
 * Takes a data directory for this process, exclusively, until the returned
 * function lets go: an exclusive SQLite lock on kernel.lock.sqlite, which the
 * OS releases when the process dies, so a kill -9'd kernel's directory is
 * free at the next start. kernel.lock then names this process, for the
 * message of whoever is refused; letting go removes it (when still ours).
 * With `watch` (a kernel that serves the directory), the lock file is checked
 * every LOCK_WATCH_MS: a cleanup that removed it took its lock along, so a
 * second kernel could start beside this one; the hold makes the file again
 * and locks it, and says which of the two happened.
 * @throws DataDirInUseError when another hold is open on the directory (this process's included).
 * @throws Error when the directory or its lock file cannot be created or opened.
 */
export function holdDataDir(dataDir: string, watch?: LockWatch): () => void {
  const dir = resolve(dataDir);
  makePrivateDir(dir);
  const lockPath = join(dir, KERNEL_LOCK_DATABASE);
  let lock = takeLock(dir, SETTLE_MS);
  const file = join(dir, KERNEL_LOCK_FILE);
  const mine = `${JSON.stringify({
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
  } satisfies KernelLockHolder)}\n`;
  try {
    writeHolder(file, mine);
  } catch (error) {
    lock.close();
    throw error;
  }
  let held = true;
  // The lock file this hold locked, and the one another process holds once that was said.
  let seen = inodeOf(lockPath);
  let lostTo: string | null = null;
  const timer = watch
    ? setInterval(() => {
        if (!held || inodeOf(lockPath) === seen) return;
        try {
          // No busy wait here: this runs on the kernel's thread.
          const next = takeLock(dir, 0);
          lock.close();
          lock = next;
          seen = inodeOf(lockPath);
          lostTo = null;
          if (!existsSync(file)) writeHolder(file, mine);
          watch.retaken();
        } catch (error) {
          if (!(error instanceof DataDirInUseError)) return; // a directory gone for now: next check
          // Tried again at each check (the other may end), said once per file it holds.
          const theirs = inodeOf(lockPath);
          if (theirs === lostTo) return;
          lostTo = theirs;
          watch.lost(error);
        }
      }, LOCK_WATCH_MS)
    : undefined;
  timer?.unref();
  return () => {
    if (!held) return;
    held = false;
    clearInterval(timer);
    // Before the lock goes: once it has, kernel.lock may be the next holder's.
    try {
      if (readFileSync(file, 'utf8') === mine) rmSync(file, { force: true });
    } catch {
      // Already gone.
    }
    lock.close();
  };
}

/**
 * Opens (or makes) kernel.lock.sqlite and takes its exclusive lock.
 * @throws DataDirInUseError when another hold has it.
 */
function takeLock(dir: string, settleMs: number): SqliteDatabase.Database {
  const lock = new SqliteDatabase(join(dir, KERNEL_LOCK_DATABASE), { timeout: settleMs });
  try {
    // Made by a root command (`sudo airlock restore`): still the directory owner's kernel's to open.
    keepDirectoryOwner(dir, [join(dir, KERNEL_LOCK_DATABASE)]);
    // Taken in NORMAL locking mode: there a refused attempt lets go of its SHARED lock before
    // its busy handler waits, while in EXCLUSIVE mode it keeps it for the whole wait, so the
    // start about to win could not finish (it needs every SHARED lock gone) and, with three
    // starts at once, all of them were refused. Switched inside the transaction: EXCLUSIVE
    // locking mode keeps the lock the transaction took after its COMMIT, until close.
    lock.exec('BEGIN EXCLUSIVE');
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('COMMIT');
    return lock;
  } catch (error) {
    lock.close();
    if (isBusy(error)) throw new DataDirInUseError(dir, readHolder(join(dir, KERNEL_LOCK_FILE)));
    throw error;
  }
}

/** Writes kernel.lock, renamed into place so nobody reads it half written. */
function writeHolder(file: string, holder: string): void {
  const draft = `${file}.${process.pid}`;
  writeFileSync(draft, holder);
  renameSync(draft, file);
}

/** The file's inode (with its device), or null when it is gone. */
function inodeOf(path: string): string | null {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat ? `${stat.dev}:${stat.ino}` : null;
}
