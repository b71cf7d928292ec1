import { OPERATION_CONTRACTS } from '@airlock/core';
import { readAudit } from '../audit/read-audit.js';
import { readRun } from '../kernel/machines/run-state.js';
import { fenceOf } from './access.js';
import { implement } from './operation.js';

/** GET /api/v1/workspaces/{ws}/runs/{run}/audit: the run's decisions as JSON lines. */
export const runAudit = implement(
  OPERATION_CONTRACTS['audit.run'],
  async ({ kernel, principal }, input) => {
    await readRun(kernel.context.store, principal.workspace_id, input.run_id);
    const records = await readAudit(kernel.context.store, {
      workspaceId: principal.workspace_id,
      runId: input.run_id,
      after: input.after,
      before: input.before ?? null,
      order: input.order,
      limit: input.limit,
    });
    return { records };
  },
);

/** GET /api/v1/workspaces/{ws}/audit?since=: the workspace's decisions as JSON lines. */
export const exportAudit = implement(
  OPERATION_CONTRACTS['audit.export'],
  async ({ kernel, principal }, input) => {
    const records = await readAudit(kernel.context.store, {
      workspaceId: principal.workspace_id,
      fence: fenceOf(principal),
      sinceMs: input.since ?? null,
      after: input.after,
      before: input.before ?? null,
      order: input.order,
      limit: input.limit,
    });
    return { records };
  },
);
