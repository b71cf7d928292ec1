import { type InboxItem, OPERATION_CONTRACTS } from '@airlock/core';
import {
  claimNext,
  claimTask,
  commitTask,
  heartbeat,
  listInbox,
} from '../kernel/verbs/executor.js';
import { releaseClaim } from '../kernel/verbs/release-claim.js';
import { implement } from './operation.js';

/** GET /executor_api/v1/inbox */
export const inbox = implement(
  OPERATION_CONTRACTS['executor.inbox'],
  async ({ kernel, principal }, input) => {
    // The kernel types a row's state loosely; the output schema checks it in tests.
    return { items: (await listInbox(kernel.context, principal, input)) as InboxItem[] };
  },
);

/** POST /executor_api/v1/runs/{run}/tasks/{key}/claim */
export const claim = implement(
  OPERATION_CONTRACTS['executor.claim'],
  ({ kernel, principal }, input) => {
    return claimTask(
      kernel.context,
      principal,
      { workspaceId: principal.workspace_id, runId: input.run_id, taskKey: input.task_key },
      input,
    );
  },
);

/** POST /executor_api/v1/claim: the next runnable row, if any. */
export const claimNextOperation = implement(
  OPERATION_CONTRACTS['executor.claimNext'],
  async ({ kernel, principal }, input) => {
    return { claim: await claimNext(kernel.context, principal, input) };
  },
);

/** POST /executor_api/v1/runs/{run}/tasks/{key}/heartbeat */
export const heartbeatOperation = implement(
  OPERATION_CONTRACTS['executor.heartbeat'],
  ({ kernel, principal }, input) => {
    return heartbeat(kernel.context, principal, {
      workspaceId: principal.workspace_id,
      runId: input.run_id,
      taskKey: input.task_key,
      claimId: input.claim_id,
      leaseMs: input.lease_ms,
    });
  },
);

/** POST /executor_api/v1/runs/{run}/tasks/{key}/commit */
export const commit = implement(
  OPERATION_CONTRACTS['executor.commit'],
  ({ kernel, principal }, input) => {
    return commitTask(kernel.context, principal, {
      workspaceId: principal.workspace_id,
      runId: input.run_id,
      taskKey: input.task_key,
      claimId: input.claim_id,
      outcome: input.outcome,
      result: input.result,
      error: input.error,
    });
  },
);

/** POST /executor_api/v1/runs/{run}/tasks/{key}/release */
export const release = implement(
  OPERATION_CONTRACTS['executor.release'],
  ({ kernel, principal }, input) => {
    return releaseClaim(kernel.context, principal, {
      workspaceId: principal.workspace_id,
      runId: input.run_id,
      taskKey: input.task_key,
      claimId: input.claim_id,
    });
  },
);
