import { cutPage, sizedEventData } from './page-budget.js';
import type { Reader } from './reader.js';
import { rowLimit } from './row-limit.js';
import type { EventType, RunEventTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';

/**
 * The events repository's reads: pages of the durable event log, and a
 * workspace's head. Events are written by the store itself, last in each unit
 * of work (event-log.ts).
 */

/** The last sequence number a workspace handed out (0 before its first event). */
export async function workspaceHead(store: Store, workspaceId: string): Promise<number> {
  const workspace = await store.db
    .selectFrom('workspaces')
    .select('event_seq')
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  return Number(workspace?.event_seq ?? 0);
}

/**
 * How many bytes of stored event data one page of the events route holds at
 * most (its JSON answer is this plus a few hundred bytes per event): a page
 * of large events stops well before V8's largest string.
 */
export const EVENT_PAGE_BYTES = 4 * 1024 * 1024;

/** A page of a workspace's events, in sequence order. */
export interface EventPage {
  workspaceId: string;
  /** Only events of this run; null or undefined for the whole workspace. */
  runId?: string | null | undefined;
  /** Events after this sequence number. */
  after: number;
  /** Events up to this sequence number, included; undefined for no bound. */
  through?: number | undefined;
  /** At most this many events. */
  limit: number;
  /**
   * At most this many bytes of event data (default {@link EVENT_PAGE_BYTES}):
   * the page stops before the event that would pass it, but always holds the
   * first event, so one larger than the budget still gets through alone.
   */
  maxBytes?: number | undefined;
}

/** What a page read: its events, and whether more follow within its bounds. */
export interface EventRows {
  rows: RunEventTable[];
  /**
   * True when the page stopped at its row limit or byte budget with events
   * left after it (up to `through`, or the head as it was read); false when
   * it read everything there was.
   */
  more: boolean;
}

/**
 * Reads one page of the event log, bounded by rows and by bytes. One read
 * sizes the candidate rows (PostgreSQL's and SQLite's `octet_length` read a
 * stored text's size without its content; one row past the limit tells
 * whether more follow) and brings the data of the small ones; when the page
 * holds a larger one, a second read brings the page's rows whole. So a page
 * of large events never loads past its budget. Events are never changed once
 * written and are numbered in commit order, so the second read finds the
 * rows the first one sized (or fewer, when retention pruned some in between,
 * which the pruned position tells its caller).
 * @throws RangeError when `limit` or `maxBytes` is not a positive safe integer.
 */
export async function readEventPage(store: Store, page: EventPage): Promise<EventRows> {
  const maxBytes = page.maxBytes ?? EVENT_PAGE_BYTES;
  // Checked before the read: a page of no rows or no bytes is a caller's mistake.
  cutPage([], page.limit, maxBytes);
  const sized = await pageQuery(store, page)
    .select(['workspace_id', 'seq', 'run_id', 'task_key', 'type', 'principal', 'created_at'])
    .select(sizedEventData('data'))
    .limit(rowLimit(page.limit + 1))
    .execute();
  const { count, more } = cutPage(
    sized.map((row) => Number(row.bytes)),
    page.limit,
    maxBytes,
  );
  let whole = true;
  for (let i = 0; i < count; i += 1) if (sized[i]!.data === null) whole = false;
  if (whole) {
    // Built field by field: a rest-and-spread copy costs microseconds a row on a hot read.
    const rows: RunEventTable[] = [];
    for (const row of sized.slice(0, count)) {
      rows.push({
        workspace_id: row.workspace_id,
        seq: row.seq,
        run_id: row.run_id,
        task_key: row.task_key,
        type: row.type,
        data: row.data!,
        principal: row.principal,
        created_at: row.created_at,
      });
    }
    return { rows, more };
  }
  const rows = await pageQuery(store, { ...page, through: sized[count - 1]!.seq })
    .selectAll()
    // The page's own limit (a constant per caller, so SQLite keeps one statement), never passed.
    .limit(rowLimit(page.limit))
    .execute();
  return { rows, more };
}

/** The rows a page reads from, in sequence order (without its limits). */
function pageQuery(store: Store, page: EventPage) {
  return store.db
    .selectFrom('run_events')
    .where('workspace_id', '=', page.workspaceId)
    .$if(page.runId != null, (qb) => qb.where('run_id', '=', page.runId!))
    .where('seq', '>', page.after)
    .$if(page.through !== undefined, (qb) => qb.where('seq', '<=', page.through!))
    .orderBy('seq');
}

/** True when a run's log already holds an event of this type. */
export async function runHasEvent(
  reader: Reader,
  run: { workspaceId: string; runId: string; type: EventType },
): Promise<boolean> {
  const earlier = await reader[SQL].db
    .selectFrom('run_events')
    .select('seq')
    .where('workspace_id', '=', run.workspaceId)
    .where('run_id', '=', run.runId)
    .where('type', '=', run.type)
    .executeTakeFirst();
  return earlier !== undefined;
}

/**
 * The data of a run's events of one type (of one row, with `taskKey`),
 * oldest first, each as its JSON text.
 */
export async function listRunEventData(
  reader: Reader,
  run: { workspaceId: string; runId: string; type: EventType; taskKey?: string | undefined },
): Promise<string[]> {
  let query = reader[SQL].db
    .selectFrom('run_events')
    .select('data')
    .where('workspace_id', '=', run.workspaceId)
    .where('run_id', '=', run.runId)
    .where('type', '=', run.type);
  if (run.taskKey !== undefined) query = query.where('task_key', '=', run.taskKey);
  const rows = await query.orderBy('seq').execute();
  return rows.map((row) => row.data);
}
