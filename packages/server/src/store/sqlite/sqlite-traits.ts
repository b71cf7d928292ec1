import { type RawBuilder, sql } from 'kysely';

/**
 * What the store's shared code asks of SQLite (see `DialectTraits` in
 * `dialect.ts`): 64-bit integers are plain `integer` columns, one kernel
 * process owns the file, its units of work running one at a time, a JSON
 * text column is read with the JSON1 functions, and a copy of the file is not
 * told apart (`airlock restore` fences the copies it makes).
 */
export const SQLITE_TRAITS = {
  bigInteger: 'integer',
  sharedByProcesses: false,
  jsonTextAt: (column: string, key: string): RawBuilder<string | null> =>
    sql<string | null>`json_extract(${sql.ref(column)}, ${sql.lit(`$.${key}`)})`,
  identityQuery: null,
  clusterQuery: null,
  queryPlan: { explain: 'explain query plan', lineColumn: 'detail', scanSetting: null },
  schemaQueries: null,
} as const;
