import { z } from 'zod';
import { RememberSchema } from '../../schemas/permissions.js';
import { LimitSchema, TaskParams, WorkspaceParams } from '../inputs.js';
import { DENY_REASON_MAX } from '../kernel-limits.js';
import { defineContract } from '../operation.js';
import { JsonValueSchema } from '../registry.js';
import { operationRoute } from '../routes.js';
import { personText } from '../stored-text.js';
import { TaskViewSchema } from '../views.js';

/** POST .../tasks/{key}/approve */
export const approveContract = defineContract({
  ...operationRoute('decisions.approve'),
  summary:
    "Approve a parked call: it becomes runnable once the workspace's approval policy has its quorum of distinct members (409 if not waiting, or if it changed since the version sent; 403 approver_not_allowed / self_approval_refused; 409 approval_refused when the approval stage refuses the call as it stands now, such as a guardrail added since it parked); tool_input approves an edited call, evaluated again by every layer (422 edit_refused when refused); remember keeps an allow rule for the rule set captured on the row (an admin only at project scope, or while the approval policy asks more than one approval by any member: 403 admin_required)",
  planes: ['member'],
  input: z.strictObject({
    ...TaskParams,
    /** The row version the person saw (or send it as `If-Match`); 409 if the row changed since. */
    version: z.string().min(1).max(64).optional(),
    /** Also keep an allow rule in an overlay of the rule set captured on the row (spec 003). */
    remember: RememberSchema.optional(),
    /** Approve with changes: the call runs with this input, if every layer still lets it. */
    tool_input: JsonValueSchema.optional(),
  }),
  output: TaskViewSchema,
  errors: [
    'run_not_found',
    'task_not_found',
    'task_not_waiting',
    'run_not_running',
    'version_mismatch',
    'remember_unavailable',
    'approver_not_allowed',
    'self_approval_refused',
    'approval_refused',
    'edit_refused',
    'admin_required',
  ],
});

/** POST .../tasks/{key}/deny */
export const denyContract = defineContract({
  ...operationRoute('decisions.deny'),
  summary: 'Deny a parked call: it fails approval_denied with the reason the model reads',
  planes: ['member'],
  input: z.strictObject({
    ...TaskParams,
    reason: personText(z.string().max(DENY_REASON_MAX)).optional(),
    /** The row version the person saw; 409 version_mismatch if the row changed since. */
    version: z.string().min(1).max(64).optional(),
  }),
  output: TaskViewSchema,
  errors: [
    'run_not_found',
    'task_not_found',
    'task_not_waiting',
    'run_not_running',
    'approver_not_allowed',
    'version_mismatch',
  ],
});

/** POST .../tasks/{key}/resolution */
export const resolveContract = defineContract({
  ...operationRoute('decisions.resolve'),
  summary:
    'Answer a question resting at awaiting_input (outcome failed declines it); an authored question needs its resolution_token',
  planes: ['member'],
  input: z.strictObject({
    ...TaskParams,
    content: JsonValueSchema.optional(),
    outcome: z.enum(['succeeded', 'failed']).optional(),
    resolution_token: z.string().min(1).max(200).optional(),
  }),
  output: TaskViewSchema,
  errors: [
    'run_not_found',
    'task_not_found',
    'task_not_waiting',
    'run_not_running',
    'invalid_resolution',
  ],
});

/** POST .../tasks/{key}/retry */
export const retryContract = defineContract({
  ...operationRoute('decisions.retry'),
  summary:
    'Retry a row holding its run (on_failure hold): a question asks again, a refused call crosses the approval stage again, an expired park parks again, anything else runs again (409 retry_refused for an invalid question or a call the stage refuses again)',
  planes: ['member'],
  input: z.strictObject(TaskParams),
  output: TaskViewSchema,
  errors: [
    'run_not_found',
    'task_not_found',
    'task_not_waiting',
    'retry_refused',
    'run_not_running',
  ],
});

/** GET /api/v1/workspaces/{ws}/decisions: every row resting on a person. */
export const listDecisionsContract = defineContract({
  ...operationRoute('decisions.list'),
  summary:
    'List every row waiting for a person in the workspace (parks and questions; not questions authored with a resolution token), a page at a time: at most limit rows, fewer when their calls pass about 8 MiB of text (never none); follow next_cursor until it is null',
  planes: ['member'],
  input: z.strictObject({
    ...WorkspaceParams,
    limit: LimitSchema,
    /** Oldest first (the default) or newest first. */
    order: z.enum(['oldest', 'newest']).default('oldest'),
    /** The `next_cursor` of the previous page: this page starts after its last row. */
    cursor: z
      .string()
      .max(600)
      .regex(/^[A-Za-z0-9_-]+$/)
      .optional(),
  }),
  output: z.object({
    decisions: z.array(TaskViewSchema),
    /** How many rows wait in the workspace in all, every page together. */
    total: z.number().int(),
    /** Pass as `cursor` for the next page; null on the last page. */
    next_cursor: z.string().nullable(),
  }),
  errors: [],
});
