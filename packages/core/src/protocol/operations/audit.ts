import { z } from 'zod';
import { AuditRecordSchema } from '../audit.js';
import { AfterSchema, RunParams, WorkspaceParams } from '../inputs.js';
import { defineContract } from '../operation.js';
import { operationRoute } from '../routes.js';

/**
 * A page stops at `limit` records or at the kernel's byte budget (4 MiB of stored decisions,
 * the events route's), whichever comes first, and is never empty while records follow: a short
 * page is not the end of the trail, an empty one is.
 */
const AuditOutput = z.object({
  records: z
    .array(AuditRecordSchema)
    .describe(
      'At most limit records and about 4 MiB (one larger record comes alone); a page may hold fewer than limit records and still be followed by more: page on from the last seq until an empty page.',
    ),
});
const AuditLimit = z.number().int().min(1).max(10_000).default(1000);

/**
 * Which end of the trail a page starts from: `oldest` (the default, an export
 * resumed with `after`) or `newest` (an investigation, paged back with `before`).
 */
const AuditOrderSchema = z.enum(['oldest', 'newest']).default('oldest');

/** The page's bounds and order: after one sequence number, before another. */
const AuditPage = {
  after: AfterSchema,
  /** Only decisions with a sequence number below this: the next newest-first page starts below the last seq read. */
  before: z.number().int().min(1).optional(),
  order: AuditOrderSchema,
  limit: AuditLimit,
};

/** GET /api/v1/workspaces/{ws}/runs/{run}/audit: the run's decisions as JSON lines. */
export const runAuditContract = defineContract({
  ...operationRoute('audit.run'),
  summary:
    "A run's decisions (rule, person, clock, hook, kernel) with principal, layer and rule indices, oldest first or, with `order=newest`, newest first; JSON lines over REST. A page holds at most `limit` records and about 4 MiB: only an empty page ends the trail",
  planes: ['agent', 'member'],
  input: z.strictObject({ ...RunParams, ...AuditPage }),
  output: AuditOutput,
  errors: ['run_not_found'],
});

/** GET /api/v1/workspaces/{ws}/audit?since=: the workspace's decisions as JSON lines. */
export const exportAuditContract = defineContract({
  ...operationRoute('audit.export'),
  summary:
    "The workspace's decisions since a time (epoch ms), between sequence numbers (`after`, `before`), oldest first or, with `order=newest`, newest first; JSON lines over REST. A page holds at most `limit` records and about 4 MiB: only an empty page ends the trail",
  planes: ['member'],
  input: z.strictObject({
    ...WorkspaceParams,
    since: z.number().int().min(0).optional(),
    ...AuditPage,
  }),
  output: AuditOutput,
  errors: [],
});
