/**
 * What the store's shared code asks of PostgreSQL (see `DialectTraits` in
 * `dialect.ts`): 64-bit integers are `bigint` columns, and several kernel
 * processes share the database, so units lock the rows they change.
 */
export const POSTGRES_TRAITS = { bigInteger: 'bigint', sharedByProcesses: true } as const;
