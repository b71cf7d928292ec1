import type { RouterInputs, RouterOutputs } from './internal/router.js';

/** A run as the kernel shows it: state, frozen configuration, attention. */
export type RunView = RouterOutputs['runs']['get'];

/** A task row as the kernel shows it: the call, its state, decision and result. */
export type TaskView = RouterOutputs['tasks']['get'];

/** One lifecycle event: a sequence number, the run, the task and what happened. */
export type FeedEvent = RouterOutputs['runs']['events']['events'][number];

/** What `runs.create` takes: a standalone run with its own mode, rules and provider. */
export type CreateRunInput = Omit<RouterInputs['runs']['create'], 'workspace_id'>;

/** A successful executor claim: the claim id, the lease and the row. */
export type ClaimView = NonNullable<RouterOutputs['executor']['claimNext']['claim']>;

/** A run's end states. */
export const RUN_END_STATES: readonly RunView['state'][] = ['completed', 'canceled', 'failed'];

/** Task states that rest on a person. */
export const WAITING_STATES: readonly TaskView['state'][] = ['needs_approval', 'awaiting_input'];

/** One decision of a workspace's audit trail: who or what decided, when, and by which rule. */
export type AuditRecord = RouterOutputs['audit']['export']['records'][number];
