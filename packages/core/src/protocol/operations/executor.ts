import { z } from 'zod';
import { ExecutorTaskParams, IdSchema, LeaseSchema, LimitSchema } from '../inputs.js';
import { defineContract } from '../operation.js';
import { JsonValueSchema } from '../registry.js';
import { ClaimSchema, InboxItemSchema, TaskViewSchema } from '../views.js';

/** GET /executor_api/v1/inbox */
export const inboxContract = defineContract({
  name: 'executor.inbox',
  summary: "List the executor's inbox: runnable tool rows, and approval/ask rows to watch",
  method: 'GET',
  path: '/executor_api/v1/inbox',
  planes: ['executor'],
  input: z.strictObject({ limit: LimitSchema }),
  output: z.object({ items: z.array(InboxItemSchema) }),
  errors: [],
});

/** POST /executor_api/v1/runs/{run}/tasks/{key}/claim */
export const claimContract = defineContract({
  name: 'executor.claim',
  summary: 'Claim a runnable row with a lease (409 not_claimable_kind for approval/ask rows)',
  method: 'POST',
  path: '/executor_api/v1/runs/{run_id}/tasks/{task_key}/claim',
  planes: ['executor'],
  input: z.strictObject({ ...ExecutorTaskParams, lease_ms: LeaseSchema }),
  output: ClaimSchema,
  errors: ['task_not_found', 'not_claimable_kind', 'not_claimable', 'run_not_running'],
});

/** POST /executor_api/v1/claim: the next runnable row, if any. */
export const claimNextContract = defineContract({
  name: 'executor.claimNext',
  summary: 'Claim the oldest runnable row (optionally of the named tools), or get null',
  method: 'POST',
  path: '/executor_api/v1/claim',
  planes: ['executor'],
  input: z.strictObject({
    lease_ms: LeaseSchema,
    tool_names: z.array(z.string()).max(256).optional(),
  }),
  output: z.object({ claim: ClaimSchema.nullable() }),
  errors: [],
});

/** POST /executor_api/v1/runs/{run}/tasks/{key}/heartbeat */
export const heartbeatContract = defineContract({
  name: 'executor.heartbeat',
  summary: "Extend a claim's lease (409 lease_lost when the claim no longer holds the row)",
  method: 'POST',
  path: '/executor_api/v1/runs/{run_id}/tasks/{task_key}/heartbeat',
  planes: ['executor'],
  input: z.strictObject({ ...ExecutorTaskParams, claim_id: IdSchema, lease_ms: LeaseSchema }),
  output: z.object({ lease_until: z.number().int() }),
  errors: ['task_not_found', 'lease_lost'],
});

/** POST /executor_api/v1/runs/{run}/tasks/{key}/commit */
export const commitContract = defineContract({
  name: 'executor.commit',
  summary: "Commit a claimed row's result or failure",
  method: 'POST',
  path: '/executor_api/v1/runs/{run_id}/tasks/{task_key}/commit',
  planes: ['executor'],
  input: z.strictObject({
    ...ExecutorTaskParams,
    claim_id: IdSchema,
    outcome: z.enum(['succeeded', 'failed']),
    result: JsonValueSchema.optional(),
    error: z
      .object({ code: z.string().min(1).max(100), detail: z.string().max(16_384) })
      .optional(),
  }),
  output: TaskViewSchema,
  errors: ['task_not_found', 'not_claimable_kind', 'lease_lost', 'run_not_running'],
});
