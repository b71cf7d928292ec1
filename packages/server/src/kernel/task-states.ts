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

/** States no transition leaves except a member's retry. */
export const TERMINAL_STATES: readonly TaskState[] = [
  'succeeded',
  'failed',
  'timed_out',
  'canceled',
];

/** Unstarted work a stop cancels. */
export const UNSTARTED_STATES: readonly TaskState[] = [
  'ready',
  'runnable',
  'needs_approval',
  'awaiting_input',
];

/** What the model reads for a park that nobody decided in time. */
export const APPROVAL_EXPIRED_TEXT = 'Nobody approved this tool call before it expired.';
