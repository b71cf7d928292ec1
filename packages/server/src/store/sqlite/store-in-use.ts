import { existsSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';

/**
 * True when another process has the SQLite store file open: a kernel (or a backup) holds a
 * SHARED lock on a WAL store's file for as long as its connection is open, which an
 * EXCLUSIVE-mode transaction here cannot get past. The OS drops that lock when the process
 * dies, and it lies on the store itself, so it fences a kernel whose kernel.lock.sqlite was
 * removed. A missing file, or one SQLite cannot read, is in nobody's use as far as this tells.
 * Taking the lock may fold a dead kernel's WAL into the file, as the kernel's next start would.
 */
export function storeOpenElsewhere(file: string): boolean {
  if (!existsSync(file)) return false;
  let database: SqliteDatabase.Database | undefined;
  try {
    database = new SqliteDatabase(file, { fileMustExist: true, timeout: 0 });
    // Set before the first read: in EXCLUSIVE locking mode a WAL store needs the file's
    // EXCLUSIVE lock, which any open connection of another process's SHARED lock refuses.
    database.pragma('locking_mode = EXCLUSIVE');
    database.exec('BEGIN EXCLUSIVE');
    database.exec('ROLLBACK');
    return false;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
  } finally {
    database?.close();
  }
}
