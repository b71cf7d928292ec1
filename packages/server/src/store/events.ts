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

/** A page of a workspace's events, in sequence order. */
export interface EventPage {
  workspaceId: string;
  /** Only events of this run; null or undefined for the whole workspace. */
  runId?: string | null | undefined;
  /** Events after this sequence number. */
  after: number;
  /** Events up to this sequence number, included; undefined for no bound. */
  through?: number | undefined;
  limit: number;
}

/** Reads one page of the event log. */
export async function readEvents(store: Store, page: EventPage): Promise<RunEventTable[]> {
  return store.db
    .selectFrom('run_events')
    .selectAll()
    .where('workspace_id', '=', page.workspaceId)
    .$if(page.runId != null, (qb) => qb.where('run_id', '=', page.runId!))
    .where('seq', '>', page.after)
    .$if(page.through !== undefined, (qb) => qb.where('seq', '<=', page.through!))
    .orderBy('seq')
    .limit(rowLimit(page.limit))
    .execute();
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
