import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  fsyncSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { PRIVATE_FILE_MODE } from '../store/private-dir.js';
import { BackupPathError } from './backup-paths.js';

/** The checksum file beside a backup: `<backup>.sha256`, one line as `sha256sum` writes it. */
export function checksumFileOf(backup: string): string {
  return `${resolve(backup)}.sha256`;
}

/** The SHA-256 of a file's bytes, in lowercase hex, read as a stream (a store may be large). */
async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Writes `<backup>.sha256` (`<hex>  <name>`, so `sha256sum -c` checks it too), synced and
 * renamed into place whole; the caller syncs the directory. Answers the checksum file's path.
 * @throws Error from the file system (the caller removes the backup: no backup without it).
 */
export async function writeChecksum(backup: string): Promise<string> {
  const file = checksumFileOf(backup);
  const line = `${await sha256Of(backup)}  ${basename(backup)}\n`;
  const draft = join(dirname(file), `.${basename(file)}.${process.pid}.partial`);
  // A leftover of a backup killed with this pid goes; a new file only, never through a link.
  rmSync(draft, { force: true });
  const fd = openSync(draft, 'wx', PRIVATE_FILE_MODE);
  try {
    writeSync(fd, line);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(draft, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(draft, file);
  return file;
}

/** What checkChecksum found: the checksum file it matched, or none beside the backup. */
export type ChecksumCheck = { matches: string } | { missing: string };

/**
 * Compares a backup with the checksum `airlock backup` wrote beside it, before a restore
 * touches anything. A backup without one (written before backups had checksums, or copied
 * by other means) is `missing`, for the caller to warn of.
 * @throws BackupPathError `backup_checksum_mismatch` when the file's bytes differ from what was
 *   backed up (a copy cut short, a changed byte) or the checksum file holds no SHA-256;
 *   `backup_unreadable` when the checksum file cannot be read.
 */
export async function checkChecksum(backup: string): Promise<ChecksumCheck> {
  const named = checksumFileOf(backup);
  // A link to a backup (latest.sqlite) has its checksum beside the file it names.
  const file = readChecksumFile(named) ?? readChecksumFile(checksumFileOf(realpathSync(backup)));
  if (!file) return { missing: named };
  const { path, text } = file;
  const expected = /^([0-9a-fA-F]{64})[ \t]/.exec(text)?.[1]?.toLowerCase();
  if (expected === undefined) {
    throw new BackupPathError(
      'backup_checksum_mismatch',
      `${path} holds no SHA-256 (it should read "<64 hex digits>  ${basename(backup)}"): ` +
        'the backup cannot be checked; restore another backup, or remove that file to restore this one unchecked',
    );
  }
  const actual = await sha256Of(backup);
  if (actual !== expected) {
    throw new BackupPathError(
      'backup_checksum_mismatch',
      `${resolve(backup)} is not the file airlock backup wrote: its SHA-256 is ${actual}, ${path} says ${expected} ` +
        '(a copy cut short, or changed on its disk); restore another backup; nothing was changed',
    );
  }
  return { matches: path };
}

/**
 * A checksum file's text, or null when there is none at `path`.
 * @throws BackupPathError `backup_unreadable` when it is there but cannot be read.
 */
function readChecksumFile(path: string): { path: string; text: string } | null {
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ENOENT') return null;
    throw new BackupPathError(
      'backup_unreadable',
      `cannot read ${path}, the backup's checksum (${String(code)}); check its permissions`,
    );
  }
}
