import { z } from 'zod';
import { WorkspaceParams } from '../inputs.js';
import { defineContract } from '../operation.js';
import { named } from '../registry.js';
import { operationRoute } from '../routes.js';

/** The longest window a policy may set: 100 years, in days. */
export const RETENTION_MAX_DAYS = 36_500;

const Days = z
  .number()
  .int('a whole number of days')
  .min(1, 'at least 1 day')
  .max(RETENTION_MAX_DAYS, `at most ${RETENTION_MAX_DAYS} days`)
  .nullable();

/** A workspace's retention policy as the member plane shows it. */
export const RetentionPolicyViewSchema = named(
  z.object({
    events_days: z.number().int().nullable(),
    runs_days: z.number().int().nullable(),
    audit_days: z.number().int().nullable(),
    updated_by: z.string().nullable(),
    updated_at: z.number().int().nullable(),
    pruned_through: z.number().int(),
    pass_failure: z
      .object({
        passes: z.number().int().describe('How many pruning passes in a row have failed so.'),
        since: z.number().int().describe('When the first of them failed (ms since the epoch).'),
        code: z
          .string()
          .nullable()
          .describe(
            "The failure's code (retention_export_failed, ENOSPC, EACCES, ENOTDIR); null when it has none.",
          ),
        cause_code: z
          .string()
          .nullable()
          .describe("Its cause's code (ENOSPC under retention_export_failed), if any."),
      })
      .nullable()
      .describe(
        "Set while the answering kernel's pruning passes keep failing (an export directory it cannot write, a full disk): nothing is pruned meanwhile, and the kernel's log (retention pass failed) names the file; null while they succeed.",
      ),
  }),
  {
    id: 'RetentionPolicy',
    description:
      "How many days lifecycle events, ended runs and audit records are kept (null: forever), the highest sequence number pruned so far, and whether the kernel's pruning passes keep failing.",
  },
);
/** A retention policy as shown. */
export type RetentionPolicyView = z.infer<typeof RetentionPolicyViewSchema>;

/** GET /api/v1/workspaces/{ws}/retention */
export const getRetentionContract = defineContract({
  ...operationRoute('retention.get'),
  summary: "Read the workspace's retention policy (every window null until one is set)",
  planes: ['member'],
  input: z.strictObject(WorkspaceParams),
  output: RetentionPolicyViewSchema,
  errors: [],
});

/** PUT /api/v1/workspaces/{ws}/retention */
export const putRetentionContract = defineContract({
  ...operationRoute('retention.put'),
  summary:
    "Set the workspace's retention policy (admin only): days to keep lifecycle events, ended runs and audit records (1..36500, null keeps forever); the kernel prunes older data in small batches, exporting it first (409 stale_digest when expected_updated_at is not the policy's updated_at)",
  planes: ['member'],
  role: 'admin',
  input: z.strictObject({
    ...WorkspaceParams,
    events_days: Days,
    runs_days: Days,
    audit_days: Days,
    /**
     * The policy's `updated_at` the caller read (null: no policy was set); refused when another
     * change came since, so a change of one window made from a read keeps the others' changes.
     */
    expected_updated_at: z.number().int().nullable().optional(),
  }),
  output: RetentionPolicyViewSchema,
  errors: ['stale_digest', 'admin_required'],
});
