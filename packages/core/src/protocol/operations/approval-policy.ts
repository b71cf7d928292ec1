import { z } from 'zod';
import { WorkspaceParams } from '../inputs.js';
import { defineContract } from '../operation.js';
import { named } from '../registry.js';
import { operationRoute } from '../routes.js';

/** A workspace's approval policy as the member plane shows it. */
export const ApprovalPolicyViewSchema = named(
  z.object({
    /** The policy document (groups, rules, no_self_approval); `{}` when none was set. */
    policy: z.record(z.string(), z.unknown()),
    /** Counts replacements; 0 before the first. */
    version: z.number().int(),
    updated_by: z.string().nullable(),
    updated_at: z.number().int().nullable(),
  }),
  {
    id: 'ApprovalPolicy',
    description:
      'Who may approve which calls of the workspace, how many distinct approvals each needs, and the self-approval rule.',
  },
);
/** An approval policy as shown. */
export type ApprovalPolicyView = z.infer<typeof ApprovalPolicyViewSchema>;

/** GET /api/v1/workspaces/{ws}/approval_policy */
export const getApprovalPolicyContract = defineContract({
  ...operationRoute('approvalPolicy.get'),
  summary: "Read the workspace's approval policy",
  planes: ['member'],
  input: z.strictObject(WorkspaceParams),
  output: ApprovalPolicyViewSchema,
  errors: [],
});

/** PUT /api/v1/workspaces/{ws}/approval_policy */
export const replaceApprovalPolicyContract = defineContract({
  ...operationRoute('approvalPolicy.replace'),
  summary:
    "Replace the workspace's approval policy whole (admin only; 422 invalid_configuration with every problem; 409 stale_digest when expected_version is not the current version); the answer names every rule the workspace's live members cannot meet, and the waiting calls whose standing approvals now meet the policy, approved at once",
  planes: ['member'],
  role: 'admin',
  input: z.strictObject({
    ...WorkspaceParams,
    // Checked by core, which reports every problem with its pointer.
    policy: z.unknown(),
    /** The version the caller read; refused when the policy changed since. */
    expected_version: z.number().int().min(0).optional(),
  }),
  output: ApprovalPolicyViewSchema.extend({
    /**
     * Each rule naming nobody (so every live member may approve) that requires more approvals
     * than the workspace has live members: the calls it covers wait for their deadline until
     * members are added or the policy changes. A rule naming fewer members than it requires is
     * refused instead (approval_quorum_unreachable). Empty when every rule can be met.
     */
    unreachable_approval_rules: z.array(
      z.object({
        rule_index: z.number().int(),
        required: z.number().int(),
        approvers_left: z.number().int(),
      }),
    ),
    /**
     * The waiting calls the new policy approved at once: their approvals that still stand
     * already meet what it asks (a lowered `required`). Each is `runnable`, with a
     * `task.approved` event whose `via` names the policy version. At most 500; the kernel
     * approves any further ones after the put answers.
     */
    approved_calls: z.array(z.object({ run_id: z.string(), task_key: z.string() })),
  }),
  errors: ['invalid_configuration', 'stale_digest', 'admin_required'],
});
