import { OPERATION_CONTRACTS } from '@airlock/core';
import { readAudit } from '../audit/read-audit.js';
import { AirlockError } from '../errors.js';
import { readRun } from '../kernel/machines/run-state.js';
import { fenceOf } from './access.js';
import { implement } from './operation.js';

/**
 * GET /api/v1/workspaces/{ws}/runs/{run}/audit: the run's decisions as JSON lines, a page
 * bounded by `limit` and by bytes (see readAudit: empty only at the trail's end). A run
 * retention pruned keeps its decisions for the audit window, so they are read without its row;
 * its application is gone with it, so an agent credential's fence keeps none of them.
 * @throws AirlockError run_not_found when the workspace holds neither the run nor a decision of it.
 */
export const runAudit = implement(
  OPERATION_CONTRACTS['audit.run'],
  async ({ kernel, principal }, input) => {
    const store = kernel.context.store;
    const query = {
      workspaceId: principal.workspace_id,
      runId: input.run_id,
      fence: fenceOf(principal),
    };
    const held = await readRun(store, principal.workspace_id, input.run_id).then(
      () => true,
      (error: unknown) => {
        if (error instanceof AirlockError && error.code === 'run_not_found') return false;
        throw error;
      },
    );
    const { records } = await readAudit(store, {
      ...query,
      after: input.after,
      before: input.before ?? null,
      order: input.order,
      limit: input.limit,
    });
    // An empty page of a pruned run is the end of its records, unless it never had one.
    if (!held && records.length === 0) {
      const any = await readAudit(store, { ...query, after: 0, limit: 1 });
      if (any.records.length === 0) {
        throw new AirlockError('run_not_found', `no run ${input.run_id} in this workspace`);
      }
    }
    return { records };
  },
);

/**
 * GET /api/v1/workspaces/{ws}/audit?since=: the workspace's decisions as JSON lines, a page
 * bounded by `limit` and by bytes (see readAudit: empty only at the trail's end).
 */
export const exportAudit = implement(
  OPERATION_CONTRACTS['audit.export'],
  async ({ kernel, principal }, input) => {
    const { records } = await readAudit(kernel.context.store, {
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
