import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Store } from '../store.js';
import { SQLITE_FILE_NAME } from './sqlite-backend.js';

/** A SQLite file's tables with their columns, and its named indexes. */
interface SchemaShape {
  tables: Map<string, Set<string>>;
  indexes: Set<string>;
}

function shapeOf(file: string): SchemaShape {
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const objects = database
      .prepare(
        "select type, name from sqlite_master where type in ('table', 'index') and name not like 'sqlite_%'",
      )
      .all() as { type: 'table' | 'index'; name: string }[];
    const tables = new Map<string, Set<string>>();
    const indexes = new Set<string>();
    for (const object of objects) {
      if (object.type === 'index') {
        indexes.add(object.name);
        continue;
      }
      const columns = database
        .prepare('select name from pragma_table_info(?)')
        .pluck()
        .all(object.name) as string[];
      tables.set(object.name, new Set(columns));
    }
    return { tables, indexes };
  } finally {
    database.close();
  }
}

/** The shape of a store this build makes: a new store, migrated, in a folder of its own. */
async function currentShape(): Promise<SchemaShape> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-schema-'));
  try {
    const store = await Store.open({ dataDir: dir });
    await store.close();
    return shapeOf(join(dir, SQLITE_FILE_NAME));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What a migrated SQLite store lacks of the schema this build's migrations
 * make (`table tasks`, `column runs.summary`, `index ...`), as a restore
 * checks a backup whose migration history says it is whole: a file changed
 * by hand or by another program passes SQLite's integrity check, and the
 * kernel would fail on it at its first statement that reads what is gone.
 * Empty when nothing is missing; tables, columns or indexes of its own are allowed.
 */
export async function missingSchema(file: string): Promise<string[]> {
  const [expected, found] = [await currentShape(), shapeOf(file)];
  const missing: string[] = [];
  for (const [table, columns] of expected.tables) {
    const has = found.tables.get(table);
    if (!has) {
      missing.push(`table ${table}`);
      continue;
    }
    for (const column of columns) if (!has.has(column)) missing.push(`column ${table}.${column}`);
  }
  for (const index of expected.indexes) {
    if (!found.indexes.has(index)) missing.push(`index ${index}`);
  }
  return missing;
}
