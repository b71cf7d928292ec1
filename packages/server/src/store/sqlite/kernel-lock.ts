import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

/** The file a kernel serving a SQLite data directory keeps there while it runs. */
export const KERNEL_LOCK_FILE = 'kernel.lock';

/** Who holds a data directory: the kernel process that wrote the lock. */
export interface KernelLockHolder {
  pid: number;
  host: string;
  started_at: string;
}

/** A data directory another live process holds; `code` is stable. */
export class DataDirInUseError extends Error {
  readonly code = 'data_dir_in_use';
  constructor(
    readonly dataDir: string,
    readonly holder: KernelLockHolder,
  ) {
    const where = holder.host === hostname() ? '' : ` on host ${holder.host}`;
    super(
      `a kernel (pid ${holder.pid}${where}, started ${holder.started_at}) serves ${dataDir}; ` +
        `stop it first, or give another --data-dir (if that process is gone, remove ${join(dataDir, KERNEL_LOCK_FILE)})`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** True when a process with this id runs on this machine (a kill -9 leaves a stale lock behind). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): { text: string; holder: KernelLockHolder | null } | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    return { text, holder: JSON.parse(text) as KernelLockHolder };
  } catch {
    return { text, holder: null };
  }
}

/** The holder a lock's contents name when that process lives (or may: another host's). */
function liveHolder(holder: KernelLockHolder | null): KernelLockHolder | null {
  if (!holder || !Number.isSafeInteger(holder.pid) || holder.pid <= 0) return null;
  if (holder.pid === process.pid) return holder;
  if (holder.host !== hostname()) return holder;
  return processAlive(holder.pid) ? holder : null;
}

/**
 * The kernel serving a data directory, or null when none does: no lock, a
 * lock left by a process that is gone, or an unreadable one.
 */
export function kernelHoldingDataDir(dataDir: string): KernelLockHolder | null {
  return liveHolder(readLock(join(resolve(dataDir), KERNEL_LOCK_FILE))?.holder ?? null);
}

/**
 * Moves a stale lock out of the way. Renamed, not removed: of two processes
 * taking over the same stale lock, only one moves it; and if the file moved
 * is not the stale one read (another process took over meanwhile), it goes back.
 */
function removeStaleLock(file: string, staleText: string): void {
  const aside = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // Someone else moved it: the next exclusive attempt decides.
  }
  if (readLock(aside)?.text !== staleText) {
    try {
      linkSync(aside, file);
    } catch {
      // A third process holds the directory now: the next attempt reads it.
    }
  }
  rmSync(aside, { force: true });
}

/**
 * Takes a data directory for this process, exclusively: the lock file is
 * created only when absent (a link, so nobody reads it half written). A lock
 * whose process is gone (a kill -9, a crash) is taken over. The returned
 * function lets go (removing the lock only while it is still this one).
 * @throws DataDirInUseError when a live process holds the directory (this one included).
 */
export function holdDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, KERNEL_LOCK_FILE);
  const mine = `${JSON.stringify({
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
  } satisfies KernelLockHolder)}\n`;
  const draft = `${file}.${process.pid}`;
  writeFileSync(draft, mine);
  try {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      try {
        linkSync(draft, file);
        return () => {
          if (readLock(file)?.text === mine) rmSync(file, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = readLock(file);
      if (!current) continue;
      const holder = liveHolder(current.holder);
      if (holder) throw new DataDirInUseError(dir, holder);
      removeStaleLock(file, current.text);
    }
    const holder = kernelHoldingDataDir(dir);
    if (holder) throw new DataDirInUseError(dir, holder);
    throw new Error(`could not take ${file}: other processes keep changing it`);
  } finally {
    rmSync(draft, { force: true });
  }
}
