import { OPERATION_CONTRACTS } from '@airlock/core';
import { decisionViews } from '../kernel/approval-quorum.js';
import { approveTask } from '../kernel/approvals.js';
import { denyTask, resolveTask, retryTask } from '../kernel/decisions.js';
import { listOpenDecisions } from '../store/tasks.js';
import { implement } from './operation.js';

function address(input: { workspace_id: string; run_id: string; task_key: string }) {
  return { workspaceId: input.workspace_id, runId: input.run_id, taskKey: input.task_key };
}

/** POST .../tasks/{key}/approve */
export const approve = implement(
  OPERATION_CONTRACTS['decisions.approve'],
  ({ kernel, principal }, input) => {
    return approveTask(kernel.context, principal, address(input), {
      version: input.version,
      remember: input.remember,
      toolInput: input.tool_input,
    });
  },
);

/** POST .../tasks/{key}/deny */
export const deny = implement(
  OPERATION_CONTRACTS['decisions.deny'],
  ({ kernel, principal }, input) => {
    return denyTask(kernel.context, principal, address(input), input.reason);
  },
);

/** POST .../tasks/{key}/resolution */
export const resolution = implement(
  OPERATION_CONTRACTS['decisions.resolve'],
  ({ kernel, principal }, input) => {
    return resolveTask(kernel.context, principal, address(input), input);
  },
);

/** POST .../tasks/{key}/retry */
export const retry = implement(
  OPERATION_CONTRACTS['decisions.retry'],
  ({ kernel, principal }, input) => {
    return retryTask(kernel.context, principal, address(input));
  },
);

/** GET /api/v1/workspaces/{ws}/decisions: every row resting on a person. */
export const listDecisions = implement(
  OPERATION_CONTRACTS['decisions.list'],
  async ({ kernel, principal }, input) => {
    const store = kernel.context.store;
    const rows = await listOpenDecisions(store, principal.workspace_id, input.limit);
    return { decisions: await decisionViews(store, principal.workspace_id, rows) };
  },
);
