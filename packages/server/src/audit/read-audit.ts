import { type ApplicationFence, fencedIn } from '../feed/fence.js';
import { readAuditEvents } from '../store/audit-events.js';
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
  /** Only decisions with a sequence number below this (the next newest-first page). */
  before?: number | null | undefined;
  /** Which end of the trail the page starts from; oldest when absent. */
  order?: 'oldest' | 'newest' | undefined;
  limit: number;
}

/**
 * Reads the audit trail from the durable event log, oldest first (or newest first): each
 * decision with its principal, layer and rule indices (see {@link auditRecord}).
 */
export async function readAudit(store: Store, query: AuditQuery): Promise<AuditRecord[]> {
  const rows = await readAuditEvents(store, { ...query, types: AUDIT_EVENT_TYPES });
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
