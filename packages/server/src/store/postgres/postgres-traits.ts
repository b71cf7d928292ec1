import { type RawBuilder, sql } from 'kysely';

/**
 * What the store's shared code asks of PostgreSQL (see `DialectTraits` in
 * `dialect.ts`): 64-bit integers are `bigint` columns, several kernel
 * processes share the database, so units lock the rows they change, a
 * JSON text column is read through the `json` type, and a database is told
 * from a copy of it by its cluster's system identifier and its OID.
 */
export const POSTGRES_TRAITS = {
  bigInteger: 'bigint',
  sharedByProcesses: true,
  jsonTextAt: (column: string, key: string): RawBuilder<string | null> =>
    sql<string | null>`(${sql.ref(column)}::json ->> ${sql.lit(key)})`,
  identityQuery: 'select oid::text as identity from pg_database where datname = current_database()',
  clusterQuery: {
    available:
      'select coalesce(has_function_privilege(' +
      "to_regprocedure('pg_catalog.pg_control_system()'), 'execute'), false) as available",
    read: 'select system_identifier::text as cluster from pg_control_system()',
  },
  queryPlan: { explain: 'explain', lineColumn: 'QUERY PLAN', scanSetting: 'enable_seqscan' },
  schemaQueries: {
    current: "select current_schema() as schema, current_setting('search_path') as search_path",
    tables: (schema: string): RawBuilder<{ name: string }> =>
      sql<{
        name: string;
      }>`select tablename as name from pg_catalog.pg_tables where schemaname = ${schema}`,
  },
} as const;
