import { OPERATION_CONTRACTS } from '@airlock/core';
import { AirlockError } from '../errors.js';
import { prunedResume } from '../feed/pruned-position.js';
import type { Kernel } from '../kernel/kernel.js';
import { readRun } from '../kernel/machines/run-state.js';
import { manifestSchemaProblems } from '../kernel/stage/tool-input-schema.js';
import { createStandaloneRun, regenerateRun, stopRun } from '../kernel/verbs/runs.js';
import { eventView, runView } from '../kernel/views.js';
import { readEventPage } from '../store/events.js';
import { principalNames } from '../store/principal-roster.js';
import { listRuns as listStoredRuns } from '../store/runs.js';
import type { RunTable } from '../store/schema.js';
import { implement } from './operation.js';
import { decodeRunCursor, encodeRunCursor, pageOf } from './page-cursors.js';
import { assertPolicyTextIsUnicode } from './policy-text.js';

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
export const createRun = implement(
  OPERATION_CONTRACTS['runs.create'],
  async ({ kernel, principal }, input) => {
    // What the model reads and says (`input`, the provider's rounds) may be any text.
    assertPolicyTextIsUnicode(input, ['input', 'provider']);
    const schemaProblems = manifestSchemaProblems(
      {
        workspaceId: principal.workspace_id,
        applicationId: principal.kind === 'agent' ? principal.agent_application_id : null,
      },
      input.tool_manifest,
    );
    if (schemaProblems.length > 0) {
      throw new AirlockError(
        'invalid_configuration',
        `the tool manifest has ${schemaProblems.length} schema problem(s); nothing was created`,
        schemaProblems,
      );
    }
    const run = await createStandaloneRun(kernel.context, principal, input);
    return settleFirstSteps(kernel, run);
  },
);

/**
 * GET /api/v1/workspaces/{ws}/runs: a page of runs, newest first; `next_cursor`
 * is where the next page starts, null once no run follows.
 * @throws invalid_input for a cursor this list did not make.
 */
export const listRuns = implement(
  OPERATION_CONTRACTS['runs.list'],
  async ({ kernel, principal }, input) => {
    const after = input.cursor === undefined ? undefined : decodeRunCursor(input.cursor);
    // One run past the page tells whether another page follows.
    const rows = await listStoredRuns(kernel.context.store, {
      workspaceId: principal.workspace_id,
      // An agent credential lists its own application's runs only (docs/concepts.md).
      agentApplicationId:
        principal.kind === 'agent' ? (principal.agent_application_id ?? '') : undefined,
      state: input.state,
      limit: input.limit + 1,
      after,
    });
    const { page, next_cursor } = pageOf(rows, input.limit, encodeRunCursor);
    return { runs: page.map(runView), next_cursor };
  },
);

/** GET /api/v1/workspaces/{ws}/runs/{run} */
export const getRun = implement(
  OPERATION_CONTRACTS['runs.get'],
  async ({ kernel, principal }, input) => {
    return runView(await readRun(kernel.context.store, principal.workspace_id, input.run_id));
  },
);

/**
 * POST /api/v1/workspaces/{ws}/runs/{run}/stop. Idempotent: a run that already
 * ended (stopped, completed or failed) is answered as it is, so a client that
 * retries a stop whose answer it lost, or a second operator, is not refused.
 * @throws run_not_found for a run the credential may not see.
 */
export const stopRunOperation = implement(
  OPERATION_CONTRACTS['runs.stop'],
  async ({ kernel, principal }, input) => {
    try {
      return await stopRun(kernel.context, principal, input.run_id, { end: 'canceled' });
    } catch (error) {
      if (!(error instanceof AirlockError) || error.code !== 'run_not_running') throw error;
      // An ended run never runs again (a regenerate makes a new run): this read is its last state.
      return runView(await readRun(kernel.context.store, principal.workspace_id, input.run_id));
    }
  },
);

/** POST /api/v1/workspaces/{ws}/runs/{run}/abandon */
export const abandonRun = implement(
  OPERATION_CONTRACTS['runs.abandon'],
  ({ kernel, principal }, input) => {
    return stopRun(kernel.context, principal, input.run_id, { end: 'abandoned' });
  },
);

/**
 * GET /api/v1/workspaces/{ws}/runs/{run}/events?after=N: a page bounded by
 * `limit` and by bytes (see readEventPage); `next_after` is where the next
 * page starts, null once the page reached the end of the log.
 * @throws feed_position_pruned when retention pruned events of the run after `after`.
 */
export const listEvents = implement(
  OPERATION_CONTRACTS['runs.events'],
  async ({ kernel, principal }, input) => {
    await readRun(kernel.context.store, principal.workspace_id, input.run_id);
    const page = await readEventPage(kernel.context.store, {
      workspaceId: principal.workspace_id,
      runId: input.run_id,
      after: input.after,
      limit: input.limit,
    });
    // Read after the page: events it missed to retention moved the pruned position first.
    const pruned = await prunedResume(kernel.context.store, {
      workspaceId: principal.workspace_id,
      runId: input.run_id,
      after: input.after,
    });
    if (pruned) throw pruned;
    const names = await principalNames(kernel.context.store, principal.workspace_id);
    return {
      events: page.rows.map((row) => ({
        ...eventView(row),
        principal_name: row.principal ? (names.get(row.principal) ?? null) : null,
      })),
      next_after: page.more ? page.rows[page.rows.length - 1]!.seq : null,
    };
  },
);

/** POST /agent_api/v1/runs/{run}/regenerate */
export const regenerateTurn = implement(
  OPERATION_CONTRACTS['runs.regenerate'],
  async ({ kernel, principal }, input) => {
    const run = await regenerateRun(kernel.context, principal, input.run_id);
    if (!run) throw new AirlockError('run_not_found', input.run_id);
    return settleFirstSteps(kernel, run);
  },
);
