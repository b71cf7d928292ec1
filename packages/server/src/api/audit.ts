import { z } from 'zod';
import { AuditRecordSchema } from '../audit/audit-records.js';
import { readAudit } from '../audit/read-audit.js';
import { readRun } from '../kernel/run-state.js';
import { fenceOf } from './access.js';
import { defineOperation } from './operation.js';
import { AfterSchema, RunParams, WorkspaceParams } from './schemas.js';

const AuditOutput = z.object({ records: z.array(AuditRecordSchema) });
const AuditLimit = z.coerce.number().int().min(1).max(10_000).default(1000);

/** GET /api/v1/workspaces/{ws}/runs/{run}/audit: the run's decisions as JSON lines. */
export const runAudit = defineOperation({
  name: 'audit.run',
  summary:
    "A run's decisions (rule, person, clock, hook, kernel) with principal, layer and rule indices; JSON lines over REST",
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/audit',
  planes: ['agent', 'member'],
  jsonLines: 'records',
  input: z.strictObject({ ...RunParams, after: AfterSchema, limit: AuditLimit }),
  output: AuditOutput,
  async handle({ kernel, principal }, input) {
    await readRun(kernel.context.store, principal.workspace_id, input.run_id);
    const records = await readAudit(kernel.context.store, {
      workspaceId: principal.workspace_id,
      runId: input.run_id,
      after: input.after,
      limit: input.limit,
    });
    return { records };
  },
});

/** GET /api/v1/workspaces/{ws}/audit?since=: the workspace's decisions as JSON lines. */
export const exportAudit = defineOperation({
  name: 'audit.export',
  summary:
    "The workspace's decisions since a time (epoch ms) and after a sequence number, oldest first; JSON lines over REST",
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/audit',
  planes: ['member'],
  jsonLines: 'records',
  input: z.strictObject({
    ...WorkspaceParams,
    since: z.coerce.number().int().min(0).optional(),
    after: AfterSchema,
    limit: AuditLimit,
  }),
  output: AuditOutput,
  async handle({ kernel, principal }, input) {
    const records = await readAudit(kernel.context.store, {
      workspaceId: principal.workspace_id,
      fence: fenceOf(principal),
      sinceMs: input.since ?? null,
      after: input.after,
      limit: input.limit,
    });
    return { records };
  },
});
