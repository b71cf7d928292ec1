import { unreadableAnswer } from '../errors.js';

/** One page of a cursor-paged list: its rows and where the next page starts. */
export interface CursorPage<T> {
  rows: T[];
  /** The next page's cursor; null (or absent, from a kernel older than paging) at the end. */
  next_cursor?: string | null | undefined;
}

/**
 * Yields every row of a cursor-paged list, reading the next page only when
 * the rows before it have been taken (a loop that breaks reads no further).
 * @throws ServerError `internal` when a page hands back the cursor it was read
 *   with, or hands a cursor with no row before it (going on would read for ever);
 *   whatever `readPage` throws.
 */
export async function* readCursorPages<T>(
  readPage: (cursor: string | undefined) => Promise<CursorPage<T>>,
  cursor?: string | undefined,
): AsyncGenerator<T, void, undefined> {
  let at = cursor;
  for (;;) {
    const page = await readPage(at);
    yield* page.rows;
    const next = page.next_cursor ?? null;
    if (next === null) return;
    if (next === at || page.rows.length === 0) {
      throw unreadableAnswer(
        'a page said to go on from where it started (or held no row); reading stopped there',
        null,
      );
    }
    at = next;
  }
}
