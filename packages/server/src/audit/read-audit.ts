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
  /** At most this many bytes of stored event data a page (default: the events route's 4 MiB). */
  maxBytes?: number | undefined;
}

/** A page of the trail: never empty while decisions follow within its bounds. */
export interface AuditPage {
  records: AuditRecord[];
  /** True when decisions follow the page's last one (read on from its `seq`). */
  more: boolean;
}

/**
 * Reads a page of the audit trail from the durable event log, oldest first (or newest first):
 * each decision with its principal, layer and rule indices (see {@link auditRecord}). The page
 * stops at `limit` records or at the byte budget, whichever comes first, but is empty only at
 * the end of the trail, so a reader pages on until an empty page.
 */
export async function readAudit(store: Store, query: AuditQuery): Promise<AuditPage> {
  let bounds = { after: query.after, before: query.before ?? null };
  for (;;) {
    const page = await readAuditEvents(store, { ...query, ...bounds, types: AUDIT_EVENT_TYPES });
    const records: AuditRecord[] = [];
    for (const {
      task_kind,
      task_tool_name,
      task_decision,
      run_application,
      ...event
    } of page.rows) {
      if (query.fence && !fencedIn(query.fence, run_application ?? null)) continue;
      const task =
        task_kind && task_tool_name !== null
          ? { kind: task_kind, tool_name: task_tool_name, decision: task_decision ?? null }
          : null;
      const record = auditRecord(event, task);
      if (record) records.push(record);
    }
    const last = page.rows.at(-1);
    // A page whose every row made no record is read past, never answered empty while more follow.
    if (records.length > 0 || !page.more || last === undefined) {
      return { records, more: page.more };
    }
    bounds =
      query.order === 'newest' ? { ...bounds, before: last.seq } : { ...bounds, after: last.seq };
  }
}
