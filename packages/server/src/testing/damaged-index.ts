import { readFileSync, writeFileSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';

/** The workspace ids {@link damageIndex} finds on the index's pages: store them first. */
export const INDEXED_WORKSPACE_IDS = Array.from(
  { length: 300 },
  (_, i) => `ws_index_${String(i).padStart(5, '0')}`,
);

/** SQLite's quick and full checks of a file, each `ok` or the first problem found. */
export function sqliteChecks(file: string): { quick: string; full: string } {
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return {
      quick: String(database.pragma('quick_check', { simple: true })),
      full: String(database.pragma('integrity_check', { simple: true })),
    };
  } finally {
    database.close();
  }
}

/**
 * Changes one key on a leaf page of the workspaces' primary-key index of a SQLite file (no
 * `-wal` beside it) holding {@link INDEXED_WORKSPACE_IDS}, as a bad sector or a torn write
 * would: every page still reads, so SQLite's quick check passes, but the index no longer finds
 * the row it names, which the full integrity check reports.
 * @throws Error when no such key is found.
 */
export function damageIndex(file: string): void {
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  let pageSize: number;
  let pageno: number;
  try {
    pageSize = database.pragma('page_size', { simple: true }) as number;
    const index = database
      .prepare(
        "select name from sqlite_master where type = 'index' and tbl_name = 'workspaces' and name like 'sqlite_autoindex%'",
      )
      .get() as { name: string };
    ({ pageno } = database
      .prepare("select pageno from dbstat where name = ? and pagetype = 'leaf' limit 1")
      .get(index.name) as { pageno: number });
  } finally {
    database.close();
  }
  const bytes = readFileSync(file);
  const page = bytes.subarray((pageno - 1) * pageSize, pageno * pageSize);
  // A key in the page's cell content area, past the header's pointer to it.
  const key = page.indexOf('ws_index_', page.readUInt16BE(5));
  if (key < 0) throw new Error(`no indexed workspace id on page ${pageno} of ${file}`);
  page[key + 'ws_index_'.length] = '9'.charCodeAt(0);
  writeFileSync(file, bytes);
}
