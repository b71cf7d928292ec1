import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BackupError } from './backup-error.js';

/**
 * The hidden copy a backup writes beside its target, named for this backup
 * alone: two backups to one file (an overlapping cron job, two operators)
 * never write, check or remove each other's copy.
 */
export function partialCopyOf(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
}

/** Codes of a file system that makes no hard links (FAT, some network and FUSE mounts). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

/**
 * Puts a checked copy in place as `target` only while no file has that
 * name: as a hard link, which the file system refuses when the name exists,
 * so a file made there since the backup started (another backup of the
 * same name finishing first, anything else) is kept, never replaced. Then
 * the copy's own name goes. Where the file system makes no hard links, the
 * copy is renamed once `target` is seen absent.
 * @throws BackupError `backup_target_exists` when `target` exists (the copy stays, for the caller to remove).
 * @throws Error from the file system.
 */
export function placeWithoutReplacing(partial: string, target: string): void {
  try {
    linkSync(partial, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') throw appeared(target);
    if (!NO_HARD_LINKS.has(code)) throw error;
    if (existsSync(target)) throw appeared(target);
    renameSync(partial, target);
    return;
  }
  rmSync(partial, { force: true });
}

function appeared(target: string): BackupError {
  return new BackupError(
    'backup_target_exists',
    `${target} was made while the backup copied (another backup to the same file?); it was left as it is, ` +
      'and this copy removed: name a new file',
  );
}
