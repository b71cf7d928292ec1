import { type RawBuilder, sql } from 'kysely';

/**
 * A `LIMIT` written into the statement's text instead of bound as a
 * parameter, for `.limit(rowLimit(n))`.
 *
 * better-sqlite3's SQLite is built with `SQLITE_ENABLE_STAT4`, under which a
 * statement whose `LIMIT` is a bound parameter (`limit ?`, as Kysely's
 * `.limit(n)` writes it) is prepared again every time it runs, the value
 * being one that may change its plan: the lookup of a hooked call's task row
 * by its call id took about 35 µs instead of 16 µs. With the count in the
 * text the prepared statement is kept (one per count; pages use a few).
 *
 * In a `runPrepared` template only a constant: the template keeps the text
 * it was first built with.
 * @throws RangeError when `count` is not a non-negative safe integer (it is
 *   written into SQL text, so nothing else may pass).
 */
export function rowLimit(count: number): RawBuilder<number> {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`a row limit is a non-negative integer, not ${String(count)}`);
  }
  return sql.lit(count);
}
