import { z } from 'zod';
import { AuditRecordSchema } from '../audit.js';
import { AfterSchema, RunParams, WorkspaceParams } from '../inputs.js';
import { defineContract } from '../operation.js';
import { operationRoute } from '../routes.js';

const AuditOutput = z.object({ records: z.array(AuditRecordSchema) });
const AuditLimit = z.number().int().min(1).max(10_000).default(1000);

/** GET /api/v1/workspaces/{ws}/runs/{run}/audit: the run's decisions as JSON lines. */
export const runAuditContract = defineContract({
  ...operationRoute('audit.run'),
  summary:
    "A run's decisions (rule, person, clock, hook, kernel) with principal, layer and rule indices; JSON lines over REST",
  planes: ['agent', 'member'],
  input: z.strictObject({ ...RunParams, after: AfterSchema, limit: AuditLimit }),
  output: AuditOutput,
  errors: ['run_not_found'],
});

/** GET /api/v1/workspaces/{ws}/audit?since=: the workspace's decisions as JSON lines. */
export const exportAuditContract = defineContract({
  ...operationRoute('audit.export'),
  summary:
    "The workspace's decisions since a time (epoch ms) and after a sequence number, oldest first; JSON lines over REST",
  planes: ['member'],
  input: z.strictObject({
    ...WorkspaceParams,
    since: z.number().int().min(0).optional(),
    after: AfterSchema,
    limit: AuditLimit,
  }),
  output: AuditOutput,
  errors: [],
});
