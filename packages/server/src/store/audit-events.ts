import { sql } from 'kysely';
import { EVENT_PAGE_BYTES } from './events.js';
import { cutPage, sizedEventData } from './page-budget.js';
import type { Reader } from './reader.js';
import { lastSeqBefore } from './retention.js';
import { rowLimit } from './row-limit.js';
import type { RunEventTable, TaskTable } from './schema.js';
import { SQL } from './sql-handle.js';

/**
 * The audit trail's read of the durable event log (audit/read-audit.ts makes
 * records of the rows): decision events joined with their task row and their
 * run's application.
 */

/** Which decision events to read: a workspace's (or one run's), after a sequence number. */
export interface AuditEventQuery {
  workspaceId: string;
  /** The event types that are decisions. */
  types: readonly RunEventTable['type'][];
  runId?: string | null | undefined;
  /** Only runs of this agent application, and of none when `unowned`. */
  fence?: { applicationId: string; unowned: boolean } | null | undefined;
  /** Only events at or after this time, epoch ms. */
  sinceMs?: number | null | undefined;
  /** Only events with a sequence number above this. */
  after: number;
  /** Only events with a sequence number below this. */
  before?: number | null | undefined;
  /** Which end the page starts from (default oldest). */
  order?: 'oldest' | 'newest' | undefined;
  limit: number;
  /**
   * At most this many bytes of event data (default {@link EVENT_PAGE_BYTES}, the
   * events route's budget): the page stops before the event that would pass it,
   * but always holds its first event.
   */
  maxBytes?: number | undefined;
}

/** A decision event with what the audit trail reads of its row and its run. */
export type AuditEventRow = RunEventTable & {
  task_kind: TaskTable['kind'] | null;
  task_tool_name: string | null;
  task_decision: string | null;
  run_application: string | null;
};

/** A page of decision events, and whether more follow within its bounds. */
export interface AuditEventPage {
  rows: AuditEventRow[];
  /** True when the page stopped at its row limit or byte budget with events left after it. */
  more: boolean;
}

/**
 * How far out of order a `since` read still finds a decision's time: events are
 * numbered in commit order and their times rise with their numbers, but two
 * kernels' clocks (or a clock stepped back) may stamp one a little before the
 * one numbered before it. A read since a time skips every event numbered up to
 * the last one stamped more than this before it: only a decision stamped more
 * than an hour after one committed after it (a clock that far ahead) may be left
 * out of a `since` read near its time, never out of a read by sequence number.
 */
export const SINCE_CLOCK_ALLOWANCE_MS = 60 * 60 * 1000;

/**
 * Where a read since a time starts: `after`, or the last event stamped more than
 * {@link SINCE_CLOCK_ALLOWANCE_MS} before `since` when that is further on (by a
 * binary search of the primary key, see lastSeqBefore). So a read of the last
 * hour of a log of months walks the last hours, not the months before them. A
 * read already inside the window (the next page of an export) costs one lookup.
 */
async function sinceFloor(reader: Reader, query: AuditEventQuery): Promise<number> {
  if (query.sinceMs == null) return query.after;
  const cutoff = query.sinceMs - SINCE_CLOCK_ALLOWANCE_MS;
  const next = await reader[SQL].db
    .selectFrom('run_events')
    .select('created_at')
    .where('workspace_id', '=', query.workspaceId)
    .where('seq', '>', query.after)
    .orderBy('seq')
    .limit(rowLimit(1))
    .executeTakeFirst();
  if (next === undefined || Number(next.created_at) >= cutoff) return query.after;
  return Math.max(query.after, await lastSeqBefore(reader, query.workspaceId, cutoff));
}

/**
 * Reads a page of decision events, oldest first or newest first, bounded by rows
 * and by bytes as the events route's pages are (store/events.ts): one read sizes
 * the candidate rows and brings the data of the small ones; when the page holds a
 * larger one, a second read brings the page's rows whole. So a page of large
 * decisions (an edit carries the whole edited input) never loads past its budget.
 * A read `since` a time starts near it (see {@link sinceFloor}).
 * @throws RangeError when `limit` or `maxBytes` is not a positive safe integer.
 */
export async function readAuditEvents(
  reader: Reader,
  asked: AuditEventQuery,
): Promise<AuditEventPage> {
  const maxBytes = asked.maxBytes ?? EVENT_PAGE_BYTES;
  // The bounds are checked before the read, not after it.
  cutPage([], asked.limit, maxBytes);
  const query = { ...asked, after: await sinceFloor(reader, asked) };
  const sized = await auditQuery(reader, query)
    .select([
      'run_events.workspace_id',
      'run_events.seq',
      'run_events.run_id',
      'run_events.task_key',
      'run_events.type',
      'run_events.principal',
      'run_events.created_at',
    ])
    .select(sizedEventData('run_events.data'))
    .limit(rowLimit(query.limit + 1))
    .execute();
  const { count, more } = cutPage(
    sized.map((row) => Number(row.bytes)),
    query.limit,
    maxBytes,
  );
  const page = sized.slice(0, count);
  if (page.every((row) => row.data !== null)) {
    return { rows: page.map(({ bytes: _bytes, ...row }) => ({ ...row, data: row.data! })), more };
  }
  // Events are never changed once written: the second read finds the rows the first one sized,
  // between its first and last; a newest-first page is bounded above too, or events committed
  // since the first read would come in place of the sized ones.
  const ends = [page[0]!.seq, page[page.length - 1]!.seq];
  const rows = await auditQuery(reader, query)
    .selectAll('run_events')
    .where('run_events.seq', '>=', Math.min(...ends))
    .where('run_events.seq', '<=', Math.max(...ends))
    .limit(rowLimit(query.limit))
    .execute();
  return { rows, more };
}

/**
 * The decision events a page reads from, with their task row and run, in page order. A row's
 * own success or failure counts only for a hook row (its row's kind, or the kind retention
 * stamped on the event of a pruned run), so that pages come full.
 */
function auditQuery(reader: Reader, query: AuditEventQuery) {
  const fence = query.fence;
  return reader[SQL].db
    .selectFrom('run_events')
    .leftJoin('tasks', (join) =>
      join
        .onRef('tasks.run_id', '=', 'run_events.run_id')
        .onRef('tasks.key', '=', 'run_events.task_key'),
    )
    .leftJoin('runs', 'runs.id', 'run_events.run_id')
    .select([
      'tasks.kind as task_kind',
      'tasks.tool_name as task_tool_name',
      'tasks.decision as task_decision',
      'runs.agent_application_id as run_application',
    ])
    .where('run_events.workspace_id', '=', query.workspaceId)
    .where('run_events.seq', '>', query.after)
    .$if(query.before != null, (qb) => qb.where('run_events.seq', '<', query.before!))
    .where('run_events.type', 'in', [...query.types])
    .where((eb) =>
      eb.or([
        eb('run_events.type', 'not in', ['task.succeeded', 'task.failed']),
        eb('tasks.kind', '=', sql.lit('hook')),
        // A pruned run's hook row, as retention stamped it on the event.
        eb('run_events.data', 'like', '%"pruned_task":{"kind":"hook"%'),
      ]),
    )
    .$if(Boolean(query.runId), (qb) => qb.where('run_events.run_id', '=', query.runId!))
    .$if(query.sinceMs != null, (qb) => qb.where('run_events.created_at', '>=', query.sinceMs!))
    .$if(Boolean(fence), (qb) =>
      fence!.unowned
        ? qb.where((eb) =>
            eb.or([
              eb('runs.agent_application_id', '=', fence!.applicationId),
              eb('runs.agent_application_id', 'is', null),
            ]),
          )
        : qb.where('runs.agent_application_id', '=', fence!.applicationId),
    )
    .orderBy('run_events.seq', query.order === 'newest' ? 'desc' : 'asc');
}
