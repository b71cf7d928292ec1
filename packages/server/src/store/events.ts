import { sql } from 'kysely';
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
 * Reads one page of the event log, bounded by rows and by bytes, in one
 * statement: the sizes of the candidate rows are summed first (PostgreSQL's
 * and SQLite's `octet_length` read a stored text's size without its
 * content), and only the rows of the page are then read whole, so a page of
 * large events never loads past its budget.
 * @throws RangeError when `limit` or `maxBytes` is not a positive safe integer.
 */
export async function readEventPage(store: Store, page: EventPage): Promise<EventRows> {
  const maxBytes = page.maxBytes ?? EVENT_PAGE_BYTES;
  if (!Number.isSafeInteger(page.limit) || page.limit < 1) {
    throw new RangeError(`a page holds at least one event, not ${String(page.limit)}`);
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new RangeError(`a page's byte budget is a positive integer, not ${String(maxBytes)}`);
  }
  // One row past the limit tells whether more follow.
  const sized = store.db
    .selectFrom('run_events')
    .select(['seq', sql<number>`octet_length(data)`.as('bytes')])
    .where('workspace_id', '=', page.workspaceId)
    .$if(page.runId != null, (qb) => qb.where('run_id', '=', page.runId!))
    .where('seq', '>', page.after)
    .$if(page.through !== undefined, (qb) => qb.where('seq', '<=', page.through!))
    .orderBy('seq')
    .limit(rowLimit(page.limit + 1));
  const running = store.db
    .selectFrom(sized.as('sized'))
    .select([
      'seq',
      sql<number>`row_number() over (order by seq)`.as('n'),
      sql<number>`sum(bytes) over (order by seq)`.as('total'),
      sql<number>`count(*) over ()`.as('probed'),
    ]);
  const rows = await store.db
    .selectFrom('run_events')
    .innerJoin(running.as('running'), 'running.seq', 'run_events.seq')
    .selectAll('run_events')
    .select('running.probed')
    .where('run_events.workspace_id', '=', page.workspaceId)
    .where((eb) =>
      eb.or([
        eb('running.n', '=', 1),
        eb.and([
          eb('running.n', '<=', rowLimit(page.limit)),
          eb('running.total', '<=', sql.lit(maxBytes)),
        ]),
      ]),
    )
    .orderBy('run_events.seq')
    .execute();
  const probed = Number(rows[0]?.probed ?? 0);
  return {
    rows: rows.map(({ probed: _, ...row }) => row),
    more: rows.length < probed,
  };
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
