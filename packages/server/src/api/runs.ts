import { z } from 'zod';
import { AirlockError } from '../kernel/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import { readRun } from '../kernel/run-state.js';
import { createStandaloneRun, regenerateRun, stopRun } from '../kernel/runs.js';
import { EventViewSchema, eventView, RunViewSchema, runView } from '../kernel/views.js';
import type { RunTable } from '../store/schema.js';
import { defineOperation } from './operation.js';
import {
  AfterSchema,
  IdSchema,
  LimitSchema,
  ModeSchema,
  RunParams,
  RunStartShape,
  WorkspaceParams,
} from './schemas.js';

/**
 * Answers a freshly created run. An inline (scripted) run has already taken
 * its first steps in its create transaction, so the caller sees its parks at
 * once; any other provider runs in the background.
 */
export function settleFirstSteps(kernel: Kernel, run: RunTable) {
  if (run.state === 'running' && run.phase === 'model') kernel.context.scheduleDrive(run.id);
  return runView(run);
}

/** POST /api/v1/workspaces/{ws}/runs: a standalone run with its own mode and rules. */
export const createRun = defineOperation({
  name: 'runs.create',
  summary: 'Create a standalone run with its own approval mode and rule list',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs',
  planes: ['agent', 'member'],
  status: 201,
  input: z.strictObject({
    ...WorkspaceParams,
    ...RunStartShape,
    approval_mode: ModeSchema,
    approval_rules: z.array(z.unknown()).default([]),
    tool_names: z.array(z.string()).optional(),
    tool_aliases: z.record(z.string(), z.string()).optional(),
    lifecycle_hooks: z.unknown().optional(),
    /** Structured action rules (spec 004); validated like the profile's. */
    action_contract: z.unknown().optional(),
  }),
  output: RunViewSchema,
  async handle({ kernel, principal }, input) {
    const run = await createStandaloneRun(kernel.context, principal, input);
    return settleFirstSteps(kernel, run);
  },
});

/** GET /api/v1/workspaces/{ws}/runs */
export const listRuns = defineOperation({
  name: 'runs.list',
  summary: 'List the runs of a workspace, newest first',
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/runs',
  planes: ['agent', 'member'],
  input: z.strictObject({
    ...WorkspaceParams,
    state: z.enum(['running', 'completed', 'canceled', 'failed']).optional(),
    limit: LimitSchema,
  }),
  output: z.object({ runs: z.array(RunViewSchema) }),
  async handle({ kernel, principal }, input) {
    const rows = await kernel.context.store.db
      .selectFrom('runs')
      .selectAll()
      .where('workspace_id', '=', principal.workspace_id)
      // An agent credential lists its own application's runs only (docs/concepts.md).
      .$if(principal.kind === 'agent', (qb) =>
        qb.where('agent_application_id', '=', principal.agent_application_id ?? ''),
      )
      .$if(input.state !== undefined, (qb) => qb.where('state', '=', input.state!))
      .orderBy('created_at', 'desc')
      .limit(input.limit)
      .execute();
    return { runs: rows.map(runView) };
  },
});

/** GET /api/v1/workspaces/{ws}/runs/{run} */
export const getRun = defineOperation({
  name: 'runs.get',
  summary: 'Read a run: its state, frozen configuration and attention',
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}',
  planes: ['agent', 'member'],
  input: z.strictObject(RunParams),
  output: RunViewSchema,
  async handle({ kernel, principal }, input) {
    return runView(await readRun(kernel.context.store, principal.workspace_id, input.run_id));
  },
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/stop */
export const stopRunOperation = defineOperation({
  name: 'runs.stop',
  summary: 'Stop a run: unstarted rows, parked ones included, are canceled',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/stop',
  planes: ['agent', 'member'],
  input: z.strictObject(RunParams),
  output: RunViewSchema,
  handle({ kernel, principal }, input) {
    return stopRun(kernel.context, principal, input.run_id, { end: 'canceled' });
  },
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/abandon */
export const abandonRun = defineOperation({
  name: 'runs.abandon',
  summary: 'Abandon a run resting on a hold: it fails and its unstarted rows are canceled',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/abandon',
  planes: ['member'],
  input: z.strictObject(RunParams),
  output: RunViewSchema,
  handle({ kernel, principal }, input) {
    return stopRun(kernel.context, principal, input.run_id, { end: 'abandoned' });
  },
});

/** GET /api/v1/workspaces/{ws}/runs/{run}/events?after=N */
export const listEvents = defineOperation({
  name: 'runs.events',
  summary: "Read a run's lifecycle events after a sequence number",
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/events',
  planes: ['agent', 'member'],
  input: z.strictObject({ ...RunParams, after: AfterSchema, limit: LimitSchema }),
  output: z.object({ events: z.array(EventViewSchema) }),
  async handle({ kernel, principal }, input) {
    await readRun(kernel.context.store, principal.workspace_id, input.run_id);
    const rows = await kernel.context.store.db
      .selectFrom('run_events')
      .selectAll()
      .where('workspace_id', '=', principal.workspace_id)
      .where('run_id', '=', input.run_id)
      .where('seq', '>', input.after)
      .orderBy('seq')
      .limit(input.limit)
      .execute();
    return { events: rows.map(eventView) };
  },
});

/** POST /agent_api/v1/runs/{run}/regenerate */
export const regenerateTurn = defineOperation({
  name: 'runs.regenerate',
  summary: "Regenerate a turn: a new run with the original's frozen configuration",
  method: 'POST',
  path: '/agent_api/v1/runs/{run_id}/regenerate',
  planes: ['agent'],
  status: 201,
  input: z.strictObject({ run_id: IdSchema }),
  output: RunViewSchema,
  async handle({ kernel, principal }, input) {
    const run = await regenerateRun(kernel.context, principal, input.run_id);
    if (!run) throw new AirlockError('run_not_found', input.run_id);
    return settleFirstSteps(kernel, run);
  },
});
