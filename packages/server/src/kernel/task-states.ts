import type { TaskState } from '@airlock/core';
import { type RawBuilder, sql } from 'kysely';

// The states and kinds are the wire's (@airlock/core's protocol): one list for both.
export { TASK_STATES, type TaskKind, type TaskState } from '@airlock/core';

/** Who wrote a row: the model, a person through the tasks door, or the kernel itself. */
export type TaskOrigin = 'model' | 'author' | 'kernel';

/** A state as an SQL literal (the partial indexes name their states literally). */
export function stateLiteral<S extends TaskState>(state: S): RawBuilder<S> {
  return sql.lit(state);
}

/** States no transition leaves except a member's retry (or a kernel's fail-hook). */
export const TERMINAL_STATES: readonly TaskState[] = [
  'succeeded',
  'failed',
  'timed_out',
  'canceled',
];

/** True when a row rests in a terminal state. */
export function isTerminal(state: TaskState): boolean {
  return TERMINAL_STATES.includes(state);
}

/** Every event a task row's moves emit (the feed's `task.*` types). */
export const TASK_EVENT_TYPES = [
  'task.created',
  'task.granted',
  'task.parked',
  'task.asked',
  'task.denied',
  'task.approved',
  'task.resolved',
  'task.retried',
  'task.claimed',
  'task.succeeded',
  'task.failed',
  'task.lease_expired',
  'task.expired',
  'task.canceled',
  'task.readdressed',
] as const;

/** A `task.*` event type. */
export type TaskEventType = (typeof TASK_EVENT_TYPES)[number];

/** What the model reads for a park that nobody decided in time. */
export const APPROVAL_EXPIRED_TEXT = 'Nobody approved this tool call before it expired.';
