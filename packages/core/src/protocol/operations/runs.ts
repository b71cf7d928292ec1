import { z } from 'zod';
import { ActionContractSchema } from '../../contracts/contract-schema.js';
import { ApprovalRuleListSchema } from '../../schemas/approval.js';
import { LifecycleHooksSchema } from '../../schemas/hooks.js';
import { PermissionConfigurationShape } from '../../schemas/permissions.js';
import { EventViewSchema } from '../events.js';
import {
  AfterSchema,
  IdSchema,
  LimitSchema,
  ModeSchema,
  RunParams,
  RunStartShape,
  WorkspaceParams,
} from '../inputs.js';
import { defineContract } from '../operation.js';
import { operationRoute } from '../routes.js';
import { RunStateSchema, RunViewSchema } from '../views.js';

const createRunInput = z.strictObject({
  ...WorkspaceParams,
  ...RunStartShape,
  approval_mode: ModeSchema,
  // Left open so that core reports every problem of the declaration at once.
  approval_rules: z.array(z.unknown()).default([]),
  tool_names: z.array(z.string()).optional(),
  tool_aliases: z.record(z.string(), z.string()).optional(),
  lifecycle_hooks: z.unknown().optional(),
  /** Structured action rules (spec 004); validated like the profile's. */
  action_contract: z.unknown().optional(),
  /** The tool manifest, the selected permission rule set and its options (spec 003). */
  ...PermissionConfigurationShape,
});

/** POST /api/v1/workspaces/{ws}/runs: a standalone run with its own mode and rules. */
export const createRunContract = defineContract({
  ...operationRoute('runs.create'),
  summary: 'Create a standalone run with its own approval mode and rule list',
  planes: ['agent', 'member'],
  status: 201,
  input: createRunInput,
  documented: createRunInput.extend({
    approval_rules: ApprovalRuleListSchema.default([]),
    lifecycle_hooks: LifecycleHooksSchema.nullable().optional(),
    action_contract: ActionContractSchema.optional(),
  }),
  output: RunViewSchema,
  errors: ['invalid_configuration'],
});

/**
 * A list's page cursor: the `next_cursor` of the page before, opaque text the
 * kernel made (base64url). A cursor it did not make is refused `invalid_input`.
 */
export const PageCursorSchema = z
  .string()
  .max(600)
  .regex(/^[A-Za-z0-9_-]+$/)
  .describe("The previous page's next_cursor: this page starts after its last row.");

/** A list's `next_cursor`: where the next page starts, null on the last page. */
export const NextCursorSchema = z
  .string()
  .nullable()
  .describe('Pass as cursor for the next page; null when this page holds the last rows.');

/** GET /api/v1/workspaces/{ws}/runs */
export const listRunsContract = defineContract({
  ...operationRoute('runs.list'),
  summary:
    'List the runs of a workspace, newest first (ties by id), a page at a time: pass next_cursor back as cursor for the next page',
  planes: ['agent', 'member'],
  input: z.strictObject({
    ...WorkspaceParams,
    state: RunStateSchema.optional(),
    limit: LimitSchema,
    cursor: PageCursorSchema.optional(),
  }),
  output: z.object({ runs: z.array(RunViewSchema), next_cursor: NextCursorSchema }),
  errors: [],
});

/** GET /api/v1/workspaces/{ws}/runs/{run} */
export const getRunContract = defineContract({
  ...operationRoute('runs.get'),
  summary: 'Read a run: its state, frozen configuration and attention',
  planes: ['agent', 'member'],
  input: z.strictObject(RunParams),
  output: RunViewSchema,
  errors: ['run_not_found'],
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/stop */
export const stopRunContract = defineContract({
  ...operationRoute('runs.stop'),
  summary:
    'Stop a run: unstarted rows, parked ones included, are canceled; a run that already ended is answered as it is',
  planes: ['agent', 'member'],
  input: z.strictObject(RunParams),
  output: RunViewSchema,
  errors: ['run_not_found'],
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/abandon */
export const abandonRunContract = defineContract({
  ...operationRoute('runs.abandon'),
  summary: 'Abandon a run resting on a hold: it fails and its unstarted rows are canceled',
  planes: ['member'],
  input: z.strictObject(RunParams),
  output: RunViewSchema,
  errors: ['run_not_found', 'run_not_running'],
});

/** GET /api/v1/workspaces/{ws}/runs/{run}/events?after=N */
export const listEventsContract = defineContract({
  ...operationRoute('runs.events'),
  summary: "Read a page of a run's lifecycle events after a sequence number",
  planes: ['agent', 'member'],
  input: z.strictObject({ ...RunParams, after: AfterSchema, limit: LimitSchema }),
  output: z.object({
    events: z.array(EventViewSchema),
    // A page stops at `limit` events or at the kernel's byte budget, whichever comes first
    // (never empty while events follow): a short page is not the end, a null here is.
    next_after: z
      .number()
      .int()
      .nullable()
      .describe(
        'Where the next page starts (pass it as after); null when this page reached the end of the log. A page may hold fewer than limit events and still be followed by more.',
      ),
  }),
  // `feed_position_pruned`: retention pruned events of the run after `after` (resume after the pruned position).
  errors: ['run_not_found', 'feed_position_pruned'],
});

/** POST /agent_api/v1/runs/{run}/regenerate */
export const regenerateTurnContract = defineContract({
  ...operationRoute('runs.regenerate'),
  summary:
    "Regenerate a turn: a new run with the original's frozen configuration (422 invalid_configuration when the deployment no longer admits its provider, such as a base_url not in --model-base-urls)",
  planes: ['agent'],
  status: 201,
  input: z.strictObject({ run_id: IdSchema }),
  output: RunViewSchema,
  errors: ['run_not_found', 'invalid_configuration'],
});
