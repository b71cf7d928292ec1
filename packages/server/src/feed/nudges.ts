import type { WorkAvailable } from '@airlock/core';
import type { EventView } from '../kernel/views.js';

// The nudge's shape is part of the wire protocol (core's WorkAvailableSchema).
export type { WorkAvailable };

const RUNNABLE_EVENTS = new Set([
  'task.granted',
  'task.approved',
  'task.lease_expired',
  'task.released',
  'task.retried',
]);

/**
 * The nudge an event means for an executor of an agent application, if any:
 * a row became runnable (kind tool), or a park or question was addressed to it.
 */
export function nudgeFor(
  event: EventView,
  agentApplicationId: string | null,
): WorkAvailable | null {
  if (!event.task_key) return null;
  const base = {
    type: 'work_available' as const,
    run_id: event.run_id,
    task_key: event.task_key,
    seq: event.seq,
  };
  const state = event.data.state;
  if (RUNNABLE_EVENTS.has(event.type) && state === 'runnable') {
    // A summarizer row is the kernel's own work: no executor is nudged for it.
    if (event.data.kind === 'summary') return null;
    return { ...base, kind: event.data.kind === 'hook' ? 'hook' : 'tool' };
  }
  const addressed = agentApplicationId !== null && event.data.addressee === agentApplicationId;
  if (
    (event.type === 'task.parked' || event.type === 'task.retried') &&
    state === 'needs_approval'
  ) {
    return addressed ? { ...base, kind: 'approval' } : null;
  }
  if (state === 'awaiting_input' && addressed) return { ...base, kind: 'ask' };
  return null;
}

/**
 * The positions in one batch of events (one commit's, or one page of the log)
 * whose row a later event of the same batch claims: a nudge for them would send
 * an executor after work someone already holds (a gateway's submit claims its
 * granted rows in the transaction that grants them). A later release, expiry or
 * retry of the row is an event of its own, with its own nudge.
 */
export function claimedLater(
  rows: readonly { run_id: string; task_key: string | null; type: string }[],
): Set<number> {
  const stale = new Set<number>();
  const claimed = new Set<string>();
  for (let i = rows.length - 1; i >= 0; i -= 1) {
    const row = rows[i]!;
    if (!row.task_key) continue;
    const key = `${row.run_id}/${row.task_key}`;
    if (row.type === 'task.claimed') claimed.add(key);
    else if (claimed.has(key)) stale.add(i);
  }
  return stale;
}
