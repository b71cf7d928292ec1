import { type Kysely, sql } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * Where a store's tables live. On PostgreSQL that is the connection's
 * current schema, the first schema of its `search_path` that exists (set it
 * in the URL, `?options=-c%20search_path%3Dairlock_staging`, to keep two
 * stores apart in one database); every statement of the kernel names its
 * tables unqualified, so they resolve there. SQLite has one schema.
 */
export interface StoreSchema {
  /** The PostgreSQL schema, or undefined on SQLite. */
  name: string | undefined;
  /** The names of the tables in it. */
  tables: ReadonlySet<string>;
}

/** The search_path names no schema that exists: nowhere to put the store's tables. */
export class NoStoreSchemaError extends Error {
  readonly code = 'store_schema_missing';
  constructor(searchPath: string) {
    super(
      `store_schema_missing: the database's search_path (${searchPath}) names no schema that exists: create the schema ` +
        'first, or drop search_path from the database URL to use public; nothing was changed',
    );
    this.name = 'NoStoreSchemaError';
  }
}

/**
 * The schema the store's tables live in, read changing nothing: PostgreSQL's
 * current schema, undefined (and no statement) on SQLite.
 * @throws NoStoreSchemaError when PostgreSQL's search_path names no existing schema.
 */
export async function storeSchemaName(
  db: Kysely<unknown>,
  dialect: Dialect,
): Promise<string | undefined> {
  const queries = DIALECT_TRAITS[dialect].schemaQueries;
  if (queries === null) return undefined;
  const { rows } = await sql
    .raw<{ schema: string | null; search_path: string }>(queries.current)
    .execute(db);
  const schema = rows[0]?.schema ?? null;
  if (schema === null) throw new NoStoreSchemaError(rows[0]?.search_path ?? '');
  return schema;
}

/**
 * Reads, changing nothing, the schema the store's tables live in and which
 * tables it holds: only that schema's, so an Airlock store in another schema
 * of the same database is neither taken for this one nor read by it.
 * @throws NoStoreSchemaError when PostgreSQL's search_path names no existing schema.
 */
export async function readStoreSchema(db: Kysely<unknown>, dialect: Dialect): Promise<StoreSchema> {
  const queries = DIALECT_TRAITS[dialect].schemaQueries;
  const name = await storeSchemaName(db, dialect);
  if (queries === null || name === undefined) {
    const tables = await db.introspection.getTables();
    return { name: undefined, tables: new Set(tables.map((table) => table.name)) };
  }
  const tables = await queries.tables(name).execute(db);
  return { name, tables: new Set(tables.rows.map((row) => row.name)) };
}
