import SqliteDatabase from 'better-sqlite3';
import { areAirlockTables } from '../migrations.js';

/** The names of a SQLite database's tables. */
export function sqliteTables(database: SqliteDatabase.Database): Set<string> {
  return new Set(
    database
      .prepare("select name from sqlite_master where type = 'table'")
      .pluck()
      .all() as string[],
  );
}

/**
 * What a SQLite file in a data directory holds, as a command that must not
 * create or change a store sees it: an Airlock store, a SQLite database of
 * another program (or an empty one), a file that is no SQLite database, or a
 * damaged one.
 */
export type SqliteFileKind = 'airlock' | 'foreign' | 'not_sqlite' | 'damaged';

/**
 * Reads which tables a SQLite file has, opened read-only: unlike the
 * store's own open (WAL mode, migrations), this writes nothing to a file
 * that turns out to be another program's.
 * @throws Error for a failure other than the file's contents (permissions, I/O).
 */
export function sqliteFileKind(file: string): SqliteFileKind {
  let database: SqliteDatabase.Database | undefined;
  try {
    database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    return areAirlockTables(sqliteTables(database)) ? 'airlock' : 'foreign';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_NOTADB') return 'not_sqlite';
    if (code === 'SQLITE_CORRUPT') return 'damaged';
    throw error;
  } finally {
    database?.close();
  }
}
