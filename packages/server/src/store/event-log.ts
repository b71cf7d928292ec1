import type { EventData } from '@airlock/core';
import type { EventType, RunEventTable } from './schema.js';

/** The data of an event: required when its type declares a required field. */
type DataOf<T extends EventType> =
  Record<never, never> extends EventData<T> ? { data?: EventData<T> } : { data: EventData<T> };

/**
 * An event waiting in a transaction; it gets its sequence number when the
 * transaction ends. Its data is typed by its type from core's event union.
 */
export type PendingEvent = {
  [T in EventType]: {
    workspace_id: string;
    run_id: string;
    task_key?: string | null;
    type: T;
    principal?: string | null;
  } & DataOf<T>;
}[EventType];

/** A committed event as stored. */
export type StoredEvent = RunEventTable;

/** A transaction's events of one workspace, as rows waiting for their sequence numbers. */
export interface EventGroup {
  workspaceId: string;
  rows: StoredEvent[];
}

/**
 * Groups a transaction's events by workspace, in the order every transaction
 * takes workspace row locks (sorted), each event as the row it will be.
 */
export function groupEvents(events: readonly PendingEvent[], now: number): EventGroup[] {
  const byWorkspace = new Map<string, StoredEvent[]>();
  for (const event of events) {
    const row: StoredEvent = {
      workspace_id: event.workspace_id,
      seq: 0,
      run_id: event.run_id,
      task_key: event.task_key ?? null,
      type: event.type,
      data: JSON.stringify(event.data ?? {}),
      principal: event.principal ?? null,
      created_at: now,
    };
    const rows = byWorkspace.get(event.workspace_id);
    if (rows) rows.push(row);
    else byWorkspace.set(event.workspace_id, [row]);
  }
  const order = byWorkspace.size === 1 ? [...byWorkspace.keys()] : [...byWorkspace.keys()].sort();
  return order.map((workspaceId) => ({ workspaceId, rows: byWorkspace.get(workspaceId)! }));
}

/** Numbers a group's rows so that the last one gets `last`. */
export function sequence(group: EventGroup, last: number): void {
  let seq = last - group.rows.length;
  for (const row of group.rows) {
    seq += 1;
    row.seq = seq;
  }
}
