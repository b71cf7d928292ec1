import { type RawBuilder, sql } from 'kysely';

/** Every state a task row can be in (DESIGN.md, "Task states"). */
export const TASK_STATES = [
  'ready',
  'runnable',
  'claimed',
  'succeeded',
  'failed',
  'needs_approval',
  'awaiting_input',
  'timed_out',
  'canceled',
] as const;

/** A task row's state. */
export type TaskState = (typeof TASK_STATES)[number];

/** What a task row stands for: a tool call, a question, a lifecycle hook or a summarizer step. */
export const TASK_KINDS = ['tool', 'ask', 'hook', 'summary'] as const;

/** A task row's kind. */
export type TaskKind = (typeof TASK_KINDS)[number];

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
