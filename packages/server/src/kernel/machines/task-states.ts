import type { EventType, TaskState } from '@airlock/core';

// The states and kinds are the wire's (@airlock/core's protocol): one list for both.
export { TASK_STATES, type TaskKind, type TaskState } from '@airlock/core';

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

/** Every event a task row's moves emit (the feed's `task.*` types), from core's event union. */
export type TaskEventType = Extract<EventType, `task.${string}`>;

/** What the model reads for a park that nobody decided in time. */
export const APPROVAL_EXPIRED_TEXT = 'Nobody approved this tool call before it expired.';
