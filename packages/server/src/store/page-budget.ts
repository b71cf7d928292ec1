import { type AliasedRawBuilder, sql } from 'kysely';

/**
 * Where a page bounded by rows and by bytes stops: the sizes of the candidate
 * rows in page order (read one past the row limit, so that a page can tell
 * whether more follow) are taken while they fit `maxBytes`, but the first row
 * always is, so a row larger than the budget still gets through alone and a
 * reader never loops on an empty page.
 * @returns how many rows the page holds, and whether rows are left after them.
 * @throws RangeError when `limit` or `maxBytes` is not a positive safe integer.
 */
export function cutPage(
  sizes: readonly number[],
  limit: number,
  maxBytes: number,
): { count: number; more: boolean } {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`a page holds at least one row, not ${String(limit)}`);
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new RangeError(`a page's byte budget is a positive integer, not ${String(maxBytes)}`);
  }
  let count = 0;
  let bytes = 0;
  for (const size of sizes) {
    const next = bytes + size;
    if (count === limit || (count > 0 && next > maxBytes)) break;
    bytes = next;
    count += 1;
  }
  return { count, more: count < sizes.length };
}

/**
 * Events of at most this many bytes of data come with the read that sizes a
 * page; larger ones are read once the page is cut. Most events are well
 * under it, so most pages take one read, and that read holds at most this
 * much per row whatever the events are.
 */
const SIZED_WITH_DATA_BYTES = 4096;

/**
 * The columns a page's sizing read selects of an event's `data` column:
 * `bytes`, its stored size (PostgreSQL's and SQLite's `octet_length`), and
 * `data`, the text itself when it is at most {@link SIZED_WITH_DATA_BYTES},
 * else null (read whole once {@link cutPage} cut the page).
 */
export function sizedEventData(
  column: 'data' | 'run_events.data',
): [AliasedRawBuilder<number, 'bytes'>, AliasedRawBuilder<string | null, 'data'>] {
  const data = sql.ref(column);
  return [
    sql<number>`octet_length(${data})`.as('bytes'),
    sql<string | null>`case when octet_length(${data}) <= ${sql.lit(
      SIZED_WITH_DATA_BYTES,
    )} then ${data} end`.as('data'),
  ];
}
