import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { BackupError } from './backup-error.js';

/*
 * What `airlock backup` and `airlock restore` read of SQLite files on disk,
 * besides what SQLite itself reads: a file's header and size, the WAL beside
 * it, whether it changed during a copy, and the log heads of the store a
 * restore replaces.
 */

/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** The first `length` bytes of a file (fewer when it is shorter). */
function fileHead(file: string, length: number): Buffer {
  const head = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  try {
    return head.subarray(0, readSync(fd, head, 0, length, 0));
  } finally {
    closeSync(fd);
  }
}

function startsAsSqlite(head: Buffer): boolean {
  return (
    head.length >= SQLITE_HEADER.length &&
    head.subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER)
  );
}

/**
 * Refuses a SQLite file shorter or longer than its header says (its page size times its page
 * count, when the header's count is valid): a copy cut short can lose only zeros at its end,
 * which SQLite reads back as they were, so nothing else would tell. `shown` names the file in
 * the refusal (the person's backup, where `file` is the restore's copy of it).
 * @throws BackupError `backup_corrupt`.
 */
export function checkWholeFile(file: string, shown = file): void {
  const head = fileHead(file, 100);
  if (head.length < 100 || !startsAsSqlite(head)) return;
  const raw = head.readUInt16BE(16);
  const pageSize = raw === 1 ? 65_536 : raw;
  const pages = head.readUInt32BE(28);
  // The header's page count is only current when its change counter matches this field.
  if (pages === 0 || head.readUInt32BE(24) !== head.readUInt32BE(92)) return;
  const size = statSync(file).size;
  if (size !== pageSize * pages) {
    throw new BackupError(
      'backup_corrupt',
      `${shown} holds ${size} bytes where its header says ${pageSize * pages}: it was cut short or damaged`,
    );
  }
}

/**
 * What SQLite's refusal to read a file means to a person restoring it: a file that starts as a
 * SQLite database but does not read whole was damaged or cut short (a copy interrupted), which
 * `backup_corrupt` says; anything else is no SQLite database at all. Other errors pass through.
 */
export function unreadable(error: unknown, file: string): unknown {
  const code = (error as { code?: string }).code;
  if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') return error;
  let head: Buffer = Buffer.alloc(0);
  try {
    head = fileHead(file, SQLITE_HEADER.length);
  } catch {
    // Unreadable here too: said as not a SQLite database below.
  }
  if (startsAsSqlite(head)) {
    return new BackupError(
      'backup_corrupt',
      `${file} is a SQLite database that does not read whole (damaged, or cut short by an interrupted copy)`,
    );
  }
  return new BackupError('not_an_airlock_store', `${file} is not a SQLite database`);
}

/**
 * The last sequence number of each workspace's log in the store a restore
 * replaces, read-only; 'unreadable' when the file is no Airlock store SQLite
 * reads (the restore then goes on, numbering from the backup's head).
 */
export function replacedHeads(file: string): Map<string, number> | 'unreadable' {
  let database: SqliteDatabase.Database | undefined;
  try {
    database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    const rows = database.prepare('select id, event_seq from workspaces').all() as {
      id: string;
      event_seq: number | bigint;
    }[];
    return new Map(rows.map((row) => [row.id, Number(row.event_seq)]));
  } catch {
    return 'unreadable';
  } finally {
    database?.close();
  }
}

/** The size and modification time of each file, to tell whether any changed meanwhile. */
export function fileStamps(files: (string | null)[]): string {
  return files
    .map((file) => {
      if (!file) return '';
      try {
        const found = statSync(file, { bigint: true });
        return `${found.size}:${found.mtimeNs}`;
      } catch {
        return 'gone';
      }
    })
    .join(' ');
}

/**
 * The `-wal` beside a file in WAL mode (its header's read and write versions,
 * bytes 18 and 19, are 2), when it holds anything: commits acknowledged but
 * not yet copied into the file, which SQLite reads as part of the database.
 * A file in rollback mode (as `airlock backup` writes) has no WAL to read: a
 * `-wal` beside it is not its own. The `-shm` is never taken: it is an index
 * of the WAL that SQLite rebuilds from it.
 */
export function walOf(file: string): string | null {
  const head = fileHead(file, 20);
  if (!startsAsSqlite(head) || head.length < 20 || head[18] !== 2 || head[19] !== 2) return null;
  const wal = `${file}-wal`;
  try {
    const found = statSync(wal);
    return found.isFile() && found.size > 0 ? wal : null;
  } catch {
    return null;
  }
}

/**
 * What a backup's copy that fails SQLite's integrity check means: the store's own damage when
 * the store fails the same check (the copy is the store page for page: `error` as it is, with
 * its `damage`), else damage the copy took on its way to disk, said as such (no `damage`).
 * Other errors pass through.
 */
export function damageOfCopy(error: unknown, source: string, target: string): unknown {
  if (!(error instanceof BackupError) || error.code !== 'backup_corrupt' || !error.damage) {
    return error;
  }
  let database: SqliteDatabase.Database | undefined;
  try {
    database = new SqliteDatabase(source, { readonly: true, fileMustExist: true });
    database.pragma('busy_timeout = 5000');
    if (String(database.pragma('integrity_check(1)', { simple: true })) !== 'ok') return error;
  } catch {
    // The store does not even read: its damage, as the copy's check said.
    return error;
  } finally {
    database?.close();
  }
  return new BackupError(
    'backup_corrupt',
    `the copy written for ${target} came out damaged (SQLite's integrity check: ${error.damage}) ` +
      `while the store reads whole; no backup was written: check the disk ${dirname(target)} is on, then back up again`,
  );
}
