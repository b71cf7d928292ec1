import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * Takes a data directory for this process, exclusively, until the returned
 * function lets go: an exclusive SQLite lock on kernel.lock.sqlite, which the
 * OS releases when the process dies, so a kill -9'd kernel's directory is
 * free at the next start. kernel.lock then names this process, for the
 * message of whoever is refused; letting go removes it (when still ours).
 * @throws DataDirInUseError when another hold is open on the directory (this process's included).
 * @throws Error when the directory or its lock file cannot be created or opened.
 */
export function holdDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  makePrivateDir(dir);
  const lock = new SqliteDatabase(join(dir, KERNEL_LOCK_DATABASE), { timeout: SETTLE_MS });
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
  } catch (error) {
    lock.close();
    if (isBusy(error)) throw new DataDirInUseError(dir, readHolder(join(dir, KERNEL_LOCK_FILE)));
    throw error;
  }
  const file = join(dir, KERNEL_LOCK_FILE);
  const mine = `${JSON.stringify({
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
  } satisfies KernelLockHolder)}\n`;
  try {
    // Renamed into place, so nobody reads it half written.
    const draft = `${file}.${process.pid}`;
    writeFileSync(draft, mine);
    renameSync(draft, file);
  } catch (error) {
    lock.close();
    throw error;
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    // Before the lock goes: once it has, kernel.lock may be the next holder's.
    try {
      if (readFileSync(file, 'utf8') === mine) rmSync(file, { force: true });
    } catch {
      // Already gone.
    }
    lock.close();
  };
}
