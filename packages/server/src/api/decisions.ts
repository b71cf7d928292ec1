import { z } from 'zod';
import { approveTask, denyTask, resolveTask, retryTask } from '../kernel/decisions.js';
import { stateLiteral } from '../kernel/task-states.js';
import { TaskViewSchema, taskView } from '../kernel/views.js';
import { defineOperation } from './operation.js';
import { LimitSchema, TaskParams, WorkspaceParams } from './schemas.js';

function address(input: { workspace_id: string; run_id: string; task_key: string }) {
  return { workspaceId: input.workspace_id, runId: input.run_id, taskKey: input.task_key };
}

/** POST .../tasks/{key}/approve */
export const approve = defineOperation({
  name: 'decisions.approve',
  summary:
    'Approve a parked call: it becomes runnable for executors (409 if not waiting, or if it changed since the version sent)',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/approve',
  planes: ['member'],
  input: z.strictObject({
    ...TaskParams,
    /** The row version the person saw (or send it as `If-Match`); 409 if the row changed since. */
    version: z.string().min(1).max(64).optional(),
  }),
  output: TaskViewSchema,
  handle({ kernel, principal }, input) {
    return approveTask(kernel.context, principal, address(input), { version: input.version });
  },
});

/** POST .../tasks/{key}/deny */
export const deny = defineOperation({
  name: 'decisions.deny',
  summary: 'Deny a parked call: it fails approval_denied with the reason the model reads',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/deny',
  planes: ['member'],
  input: z.strictObject({ ...TaskParams, reason: z.string().max(4096).optional() }),
  output: TaskViewSchema,
  handle({ kernel, principal }, input) {
    return denyTask(kernel.context, principal, address(input), input.reason);
  },
});

/** POST .../tasks/{key}/resolution */
export const resolution = defineOperation({
  name: 'decisions.resolve',
  summary:
    'Answer a question resting at awaiting_input (outcome failed declines it); an authored question needs its resolution_token',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/resolution',
  planes: ['member'],
  input: z.strictObject({
    ...TaskParams,
    content: z.unknown().optional(),
    outcome: z.enum(['succeeded', 'failed']).optional(),
    resolution_token: z.string().min(1).max(200).optional(),
  }),
  output: TaskViewSchema,
  handle({ kernel, principal }, input) {
    return resolveTask(kernel.context, principal, address(input), input);
  },
});

/** POST .../tasks/{key}/retry */
export const retry = defineOperation({
  name: 'decisions.retry',
  summary: 'Retry a row holding its run (on_failure hold): runnable again, or parked afresh',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/retry',
  planes: ['member'],
  input: z.strictObject(TaskParams),
  output: TaskViewSchema,
  handle({ kernel, principal }, input) {
    return retryTask(kernel.context, principal, address(input));
  },
});

/** GET /api/v1/workspaces/{ws}/decisions: every row resting on a person. */
export const listDecisions = defineOperation({
  name: 'decisions.list',
  summary:
    'List every row waiting for a person in the workspace (parks and questions; not questions authored with a resolution token)',
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/decisions',
  planes: ['member'],
  input: z.strictObject({ ...WorkspaceParams, limit: LimitSchema }),
  output: z.object({ decisions: z.array(TaskViewSchema) }),
  async handle({ kernel, principal }, input) {
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
});
