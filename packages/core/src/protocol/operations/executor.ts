import { z } from 'zod';
import { ExecutorTaskParams, IdSchema, LeaseSchema, LimitSchema } from '../inputs.js';
import { defineContract } from '../operation.js';
import { JsonValueSchema } from '../registry.js';
import { CLAIM_TOOL_NAMES_MAX, operationRoute } from '../routes.js';
import { keptText, storableName } from '../stored-text.js';
import { ClaimSchema, InboxItemSchema, TaskViewSchema } from '../views.js';

/** GET /executor_api/v1/inbox */
export const inboxContract = defineContract({
  ...operationRoute('executor.inbox'),
  summary: "List the executor's inbox: runnable tool rows, and approval/ask rows to watch",
  planes: ['executor'],
  input: z.strictObject({ limit: LimitSchema }),
  output: z.object({ items: z.array(InboxItemSchema) }),
  errors: [],
});

/** POST /executor_api/v1/runs/{run}/tasks/{key}/claim */
export const claimContract = defineContract({
  ...operationRoute('executor.claim'),
  summary:
    "Claim a runnable row with a lease (409 not_claimable_kind for approval/ask rows and a hooked agent's own calls)",
  planes: ['executor'],
  input: z.strictObject({ ...ExecutorTaskParams, lease_ms: LeaseSchema }),
  output: ClaimSchema,
  errors: ['task_not_found', 'not_claimable_kind', 'not_claimable', 'run_not_running'],
});

/** POST /executor_api/v1/claim: the next runnable row, if any. */
export const claimNextContract = defineContract({
  ...operationRoute('executor.claimNext'),
  summary: 'Claim the oldest runnable row (optionally of the named tools), or get null',
  planes: ['executor'],
  input: z.strictObject({
    lease_ms: LeaseSchema,
    // A tool's name never holds NUL or a lone surrogate: a filter with one is a mistake on every store.
    tool_names: z.array(storableName(z.string())).max(CLAIM_TOOL_NAMES_MAX).optional(),
  }),
  output: z.object({ claim: ClaimSchema.nullable() }),
  errors: [],
});

/** POST /executor_api/v1/runs/{run}/tasks/{key}/heartbeat */
export const heartbeatContract = defineContract({
  ...operationRoute('executor.heartbeat'),
  summary: "Extend a claim's lease (409 lease_lost when the claim no longer holds the row)",
  planes: ['executor'],
  input: z.strictObject({ ...ExecutorTaskParams, claim_id: IdSchema, lease_ms: LeaseSchema }),
  // lease_ms: the lease granted (at most the one asked for), measured from when the kernel took the heartbeat.
  output: z.object({ lease_until: z.number().int(), lease_ms: z.number().int() }),
  errors: ['task_not_found', 'lease_lost'],
});

/** POST /executor_api/v1/runs/{run}/tasks/{key}/commit */
export const commitContract = defineContract({
  ...operationRoute('executor.commit'),
  summary: "Commit a claimed row's result or failure",
  planes: ['executor'],
  input: z.strictObject({
    ...ExecutorTaskParams,
    claim_id: IdSchema,
    outcome: z.enum(['succeeded', 'failed']),
    result: JsonValueSchema.optional(),
    error: z
      .object({
        code: storableName(z.string().min(1).max(100)),
        detail: keptText(z.string().max(16_384)),
      })
      .optional(),
  }),
  output: TaskViewSchema,
  errors: ['task_not_found', 'not_claimable_kind', 'lease_lost', 'run_not_running'],
});

/**
 * POST /executor_api/v1/runs/{run}/tasks/{key}/release: for a claim whose tool
 * the executor never started. The row is runnable again at once (its claim
 * cleared, `task.released` in its history), or canceled when its run ended;
 * a repeat answers the row as it is while it is still runnable. An executor that may have started the tool lets
 * the lease lapse instead, and the kernel decides.
 */
export const releaseContract = defineContract({
  ...operationRoute('executor.release'),
  summary:
    'Hand back a claim whose tool never started: the row is runnable again at once, not a lapse (409 lease_lost when the claim no longer holds the row)',
  planes: ['executor'],
  input: z.strictObject({ ...ExecutorTaskParams, claim_id: IdSchema }),
  output: TaskViewSchema,
  // not_claimable_kind as for a commit: an approval or ask row, or a hooked agent's own call.
  errors: ['task_not_found', 'not_claimable_kind', 'lease_lost'],
});
