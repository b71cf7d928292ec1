/*
 * One page of a run's task rows (tasks.list), bounded by bytes as well as by rows: a run of
 * thousands of calls with large inputs or results made one answer of every row, of any size.
 */

import type { TaskTable } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { listTasksOfRun } from '../store/tasks.js';
import { ROW_PAGE_BYTES, taskRowBytes } from './row-bytes.js';

/**
 * About how many bytes of stored text one page of a run's rows holds at most, as a page of
 * decisions does, limit or none. A page always holds one row.
 */
export const TASK_PAGE_BYTES = ROW_PAGE_BYTES;

/** How many rows the first read of a page takes when no limit was named. */
const FIRST_READ_ROWS = 50;

/** The most rows one read of a page takes when no limit was named. */
const MOST_READ_ROWS = 1000;

/** A page of a run's rows, and whether a row follows it. */
export interface TaskRowPage {
  rows: TaskTable[];
  more: boolean;
}

/**
 * Reads a page of the run's rows after `afterKey` in planting order: at most `limit` rows,
 * fewer once their text passes {@link TASK_PAGE_BYTES} (never none). Without a limit it reads
 * {@link FIRST_READ_ROWS} rows first, then as many as the rows read so far say still fit (up to
 * {@link MOST_READ_ROWS}), until the budget or the last row, so the kernel holds little more
 * than a page either; `firstRead` sets the first read's rows (tests).
 * @throws what the store throws.
 */
export async function readTaskPage(
  store: Store,
  runId: string,
  options: { limit: number | undefined; afterKey: string | undefined; firstRead?: number },
): Promise<TaskRowPage> {
  const rows: TaskTable[] = [];
  let bytes = 0;
  let afterKey = options.afterKey;
  let want = options.limit ?? options.firstRead ?? FIRST_READ_ROWS;
  for (;;) {
    // One row past what is wanted tells whether another follows.
    const read = await listTasksOfRun(store, runId, { limit: want + 1, afterKey });
    for (const row of read.slice(0, want)) {
      bytes += taskRowBytes(row);
      if (rows.length > 0 && bytes > TASK_PAGE_BYTES) return { rows, more: true };
      rows.push(row);
    }
    if (read.length <= want) return { rows, more: false };
    if (options.limit !== undefined) return { rows, more: true };
    afterKey = rows[rows.length - 1]!.key;
    // As many rows as the average so far says still fit, and one more to find the end.
    const average = Math.max(1, bytes / rows.length);
    want = Math.min(MOST_READ_ROWS, Math.floor((TASK_PAGE_BYTES - bytes) / average) + 1);
  }
}
