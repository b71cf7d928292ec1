/**
 * What the store's shared code asks of SQLite (see `DialectTraits` in
 * `dialect.ts`): 64-bit integers are plain `integer` columns, and one kernel
 * process owns the file, its units of work running one at a time.
 */
export const SQLITE_TRAITS = { bigInteger: 'integer', sharedByProcesses: false } as const;
