import { z } from 'zod';
import { claimNext, claimTask, commitTask, heartbeat, listInbox } from '../kernel/executor.js';
import { TaskViewSchema } from '../kernel/views.js';
import { defineOperation } from './operation.js';
import { IdSchema, LimitSchema } from './schemas.js';

const ExecutorTaskParams = { run_id: IdSchema, task_key: IdSchema };
const LeaseSchema = z.number().int().min(1000).max(86_400_000).optional();

/** An inbox row. */
export const InboxItemSchema = z.object({
  kind: z.enum(['tool', 'hook', 'approval', 'ask']),
  run_id: z.string(),
  task_key: z.string(),
  state: z.string(),
  tool_name: z.string(),
  tool_input: z.unknown(),
  effect_profile: z.unknown().nullable(),
  deadline_at: z.number().int().nullable(),
  created_at: z.number().int(),
});

/** A successful claim. */
export const ClaimSchema = z.object({
  claim_id: z.string(),
  lease_until: z.number().int(),
  task: TaskViewSchema,
});

/** GET /executor_api/v1/inbox */
export const inbox = defineOperation({
  name: 'executor.inbox',
  summary: "List the executor's inbox: runnable tool rows, and approval/ask rows to watch",
  method: 'GET',
  path: '/executor_api/v1/inbox',
  planes: ['executor'],
  input: z.strictObject({ limit: LimitSchema }),
  output: z.object({ items: z.array(InboxItemSchema) }),
  async handle({ kernel, principal }, input) {
    return { items: await listInbox(kernel.context, principal, input) };
  },
});

/** POST /executor_api/v1/runs/{run}/tasks/{key}/claim */
export const claim = defineOperation({
  name: 'executor.claim',
  summary: 'Claim a runnable row with a lease (409 not_claimable_kind for approval/ask rows)',
  method: 'POST',
  path: '/executor_api/v1/runs/{run_id}/tasks/{task_key}/claim',
  planes: ['executor'],
  input: z.strictObject({ ...ExecutorTaskParams, lease_ms: LeaseSchema }),
  output: ClaimSchema,
  handle({ kernel, principal }, input) {
    return claimTask(
      kernel.context,
      principal,
      { workspaceId: principal.workspace_id, runId: input.run_id, taskKey: input.task_key },
      input,
    );
  },
});

/** POST /executor_api/v1/claim: the next runnable row, if any. */
export const claimNextOperation = defineOperation({
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
  async handle({ kernel, principal }, input) {
    return { claim: await claimNext(kernel.context, principal, input) };
  },
});

/** POST /executor_api/v1/runs/{run}/tasks/{key}/heartbeat */
export const heartbeatOperation = defineOperation({
  name: 'executor.heartbeat',
  summary: "Extend a claim's lease (409 lease_lost when the claim no longer holds the row)",
  method: 'POST',
  path: '/executor_api/v1/runs/{run_id}/tasks/{task_key}/heartbeat',
  planes: ['executor'],
  input: z.strictObject({ ...ExecutorTaskParams, claim_id: IdSchema, lease_ms: LeaseSchema }),
  output: z.object({ lease_until: z.number().int() }),
  handle({ kernel, principal }, input) {
    return heartbeat(kernel.context, principal, {
      workspaceId: principal.workspace_id,
      runId: input.run_id,
      taskKey: input.task_key,
      claimId: input.claim_id,
      leaseMs: input.lease_ms,
    });
  },
});

/** POST /executor_api/v1/runs/{run}/tasks/{key}/commit */
export const commit = defineOperation({
  name: 'executor.commit',
  summary: "Commit a claimed row's result or failure",
  method: 'POST',
  path: '/executor_api/v1/runs/{run_id}/tasks/{task_key}/commit',
  planes: ['executor'],
  input: z.strictObject({
    ...ExecutorTaskParams,
    claim_id: IdSchema,
    outcome: z.enum(['succeeded', 'failed']),
    result: z.unknown().optional(),
    error: z
      .object({ code: z.string().min(1).max(100), detail: z.string().max(16_384) })
      .optional(),
  }),
  output: TaskViewSchema,
  handle({ kernel, principal }, input) {
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
});
