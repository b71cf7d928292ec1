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
  name: 'runs.create',
  summary: 'Create a standalone run with its own approval mode and rule list',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs',
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

/** GET /api/v1/workspaces/{ws}/runs */
export const listRunsContract = defineContract({
  name: 'runs.list',
  summary: 'List the runs of a workspace, newest first',
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/runs',
  planes: ['agent', 'member'],
  input: z.strictObject({
    ...WorkspaceParams,
    state: RunStateSchema.optional(),
    limit: LimitSchema,
  }),
  output: z.object({ runs: z.array(RunViewSchema) }),
  errors: [],
});

/** GET /api/v1/workspaces/{ws}/runs/{run} */
export const getRunContract = defineContract({
  name: 'runs.get',
  summary: 'Read a run: its state, frozen configuration and attention',
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}',
  planes: ['agent', 'member'],
  input: z.strictObject(RunParams),
  output: RunViewSchema,
  errors: ['run_not_found'],
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/stop */
export const stopRunContract = defineContract({
  name: 'runs.stop',
  summary: 'Stop a run: unstarted rows, parked ones included, are canceled',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/stop',
  planes: ['agent', 'member'],
  input: z.strictObject(RunParams),
  output: RunViewSchema,
  errors: ['run_not_found', 'run_not_running'],
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/abandon */
export const abandonRunContract = defineContract({
  name: 'runs.abandon',
  summary: 'Abandon a run resting on a hold: it fails and its unstarted rows are canceled',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/abandon',
  planes: ['member'],
  input: z.strictObject(RunParams),
  output: RunViewSchema,
  errors: ['run_not_found', 'run_not_running'],
});

/** GET /api/v1/workspaces/{ws}/runs/{run}/events?after=N */
export const listEventsContract = defineContract({
  name: 'runs.events',
  summary: "Read a run's lifecycle events after a sequence number",
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/events',
  planes: ['agent', 'member'],
  input: z.strictObject({ ...RunParams, after: AfterSchema, limit: LimitSchema }),
  output: z.object({ events: z.array(EventViewSchema) }),
  errors: ['run_not_found'],
});

/** POST /agent_api/v1/runs/{run}/regenerate */
export const regenerateTurnContract = defineContract({
  name: 'runs.regenerate',
  summary: "Regenerate a turn: a new run with the original's frozen configuration",
  method: 'POST',
  path: '/agent_api/v1/runs/{run_id}/regenerate',
  planes: ['agent'],
  status: 201,
  input: z.strictObject({ run_id: IdSchema }),
  output: RunViewSchema,
  errors: ['run_not_found'],
});
