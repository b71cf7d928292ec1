import { OPERATION_CONTRACTS } from '@airlock/core';
import { approveTask, denyTask, resolveTask, retryTask } from '../kernel/decisions.js';
import { stateLiteral } from '../kernel/task-states.js';
import { taskView } from '../kernel/views.js';
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
    const rows = await kernel.context.store.db
      .selectFrom('tasks')
      .selectAll()
      .where('workspace_id', '=', principal.workspace_id)
      .where('state', 'in', [stateLiteral('needs_approval'), stateLiteral('awaiting_input')])
      // A question authored through the tasks door is its token holder's alone.
      .where('resolution_token_hash', 'is', null)
      .orderBy('created_at')
      .limit(input.limit)
      .execute();
    return { decisions: rows.map(taskView) };
  },
);
