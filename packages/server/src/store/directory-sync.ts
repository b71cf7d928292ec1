import { closeSync, fsyncSync, openSync } from 'node:fs';

/**
 * Flushes a directory's entries to disk, so a file just made or renamed in it
 * is there after a power cut too (fsync of a file syncs its data, not its name).
 * A file system that cannot sync a directory (EINVAL) is left as it is.
 * @throws Error from the file system, such as EIO.
 */
export function syncDirectory(directory: string): void {
  const fd = openSync(directory, 'r');
  try {
    fsyncSync(fd);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EINVAL') throw error;
  } finally {
    closeSync(fd);
  }
}
