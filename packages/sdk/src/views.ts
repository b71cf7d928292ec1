import type { OperationContracts, OperationInput, RunView, TaskView } from '@airlock/core';

export type {
  ApprovalProgress,
  AuditRecord,
  ClaimView,
  DeliveryView,
  EventView as FeedEvent,
  InboxItem,
  RunView,
  TaskView,
} from '@airlock/core';

/** What `runs.create` takes: a standalone run with its own mode, rules and provider. */
export type CreateRunInput = Omit<
  OperationInput<OperationContracts['runs.create']>,
  'workspace_id'
>;

/** A run's end states. */
export const RUN_END_STATES: readonly RunView['state'][] = ['completed', 'canceled', 'failed'];

/** Task states that rest on a person. */
export const WAITING_STATES: readonly TaskView['state'][] = ['needs_approval', 'awaiting_input'];
