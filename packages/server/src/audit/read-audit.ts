import { type ApplicationFence, fencedIn } from '../feed/fence.js';
import type { Store } from '../store/store.js';
import { AUDIT_EVENT_TYPES, type AuditRecord, auditRecord } from './audit-records.js';

/** Which decisions to read: a workspace's (or one run's), after a sequence number. */
export interface AuditQuery {
  workspaceId: string;
  runId?: string | null;
  /** Only runs inside this fence (an agent credential's own application). */
  fence?: ApplicationFence | null;
  /** Only decisions made at or after this time, epoch ms. */
  sinceMs?: number | null;
  /** Only decisions with a sequence number above this. */
  after: number;
  limit: number;
}

/**
 * Reads the audit trail from the durable event log, oldest first: each
 * decision with its principal, layer and rule indices (see {@link auditRecord}).
 */
export async function readAudit(store: Store, query: AuditQuery): Promise<AuditRecord[]> {
  const rows = await store.db
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
    .where('run_events.type', 'in', [...AUDIT_EVENT_TYPES])
    // A row's own success or failure is a decision only for a hook row: filtered here so pages are full.
    .where((eb) =>
      eb.or([
        eb('run_events.type', 'not in', ['task.succeeded', 'task.failed']),
        eb('tasks.kind', '=', 'hook'),
        // A pruned run's hook row, as retention stamped it on the event.
        eb('run_events.data', 'like', '%"pruned_task":{"kind":"hook"%'),
      ]),
    )
    .$if(Boolean(query.runId), (qb) => qb.where('run_events.run_id', '=', query.runId!))
    .$if(query.sinceMs != null, (qb) => qb.where('run_events.created_at', '>=', query.sinceMs!))
    .$if(Boolean(query.fence), (qb) =>
      query.fence!.unowned
        ? qb.where((eb) =>
            eb.or([
              eb('runs.agent_application_id', '=', query.fence!.applicationId),
              eb('runs.agent_application_id', 'is', null),
            ]),
          )
        : qb.where('runs.agent_application_id', '=', query.fence!.applicationId),
    )
    .orderBy('run_events.seq')
    .limit(query.limit)
    .execute();
  const records: AuditRecord[] = [];
  for (const { task_kind, task_tool_name, task_decision, run_application, ...event } of rows) {
    if (query.fence && !fencedIn(query.fence, run_application ?? null)) continue;
    const task =
      task_kind && task_tool_name !== null
        ? { kind: task_kind, tool_name: task_tool_name, decision: task_decision ?? null }
        : null;
    const record = auditRecord(event, task);
    if (record) records.push(record);
  }
  return records;
}
