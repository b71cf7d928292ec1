import { sql } from 'kysely';
import { rowLimit } from './row-limit.js';
import type { RunEventTable, TaskTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';

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
}

/** A decision event with what the audit trail reads of its row and its run. */
export type AuditEventRow = RunEventTable & {
  task_kind: TaskTable['kind'] | null;
  task_tool_name: string | null;
  task_decision: string | null;
  run_application: string | null;
};

/**
 * Reads decision events, oldest first or newest first. A row's own success or failure counts
 * only for a hook row (its row's kind, or the kind retention stamped on the
 * event of a pruned run), so that pages come full.
 */
export async function readAuditEvents(
  store: Store,
  query: AuditEventQuery,
): Promise<AuditEventRow[]> {
  const fence = query.fence;
  return store[SQL].db
    .selectFrom('run_events')
    .leftJoin('tasks', (join) =>
      join
        .onRef('tasks.run_id', '=', 'run_events.run_id')
        .onRef('tasks.key', '=', 'run_events.task_key'),
    )
    .leftJoin('runs', 'runs.id', 'run_events.run_id')
    .selectAll('run_events')
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
    .orderBy('run_events.seq', query.order === 'newest' ? 'desc' : 'asc')
    .limit(rowLimit(query.limit))
    .execute();
}
