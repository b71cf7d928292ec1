import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * The kernel serving a data directory, or null when none does: no lock, a
 * lock left by a process that is gone, or an unreadable one.
 */
export function kernelHoldingDataDir(dataDir: string): KernelLockHolder | null {
  let holder: KernelLockHolder;
  try {
    holder = JSON.parse(readFileSync(join(resolve(dataDir), KERNEL_LOCK_FILE), 'utf8'));
  } catch {
    return null;
  }
  if (!Number.isSafeInteger(holder.pid) || holder.pid <= 0) return null;
  if (holder.pid === process.pid) return holder;
  if (holder.host !== hostname()) return holder;
  return processAlive(holder.pid) ? holder : null;
}

/**
 * Marks a data directory as served by this process; the returned function
 * removes the mark (only if it is still this process's).
 */
export function holdDataDir(dataDir: string): () => void {
  const file = join(resolve(dataDir), KERNEL_LOCK_FILE);
  const holder: KernelLockHolder = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
  };
  writeFileSync(file, `${JSON.stringify(holder)}\n`);
  return () => {
    try {
      const current = JSON.parse(readFileSync(file, 'utf8')) as KernelLockHolder;
      if (current.pid === process.pid) rmSync(file, { force: true });
    } catch {
      // Gone already, or rewritten by another kernel: not ours to remove.
    }
  };
}
