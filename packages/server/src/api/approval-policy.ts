import {
  credentialIdOf,
  OPERATION_CONTRACTS,
  type Problem,
  validateApprovalPolicy,
} from '@airlock/core';
import { AirlockError } from '../errors.js';
import { unreachableRules } from '../kernel/verbs/approvers.js';
import { configurationDigest, recordPolicyChange } from '../kernel/verbs/policy-changes.js';
import { settleMetQuorums } from '../kernel/verbs/policy-settle.js';
import { principalName } from '../store/accounts.js';
import {
  readApprovalPolicy,
  readApprovalPolicyToReplace,
  writeApprovalPolicy,
} from '../store/approvals.js';
import { memberCredentialStates } from '../store/principal-roster.js';
import { implement } from './operation.js';
import { assertPolicyTextIsUnicode } from './policy-text.js';

/**
 * Every entry naming a credential that is no member credential of the workspace, or one that
 * was revoked (it can approve nothing, so a rule counting on it could wait forever).
 */
function unknownMembers(
  policy: Record<string, unknown>,
  members: ReadonlyMap<string, { revoked: boolean }>,
): Problem[] {
  const problems: Problem[] = [];
  const check = (list: unknown, pointer: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((entry, index) => {
      const id = typeof entry === 'string' ? credentialIdOf(entry) : null;
      if (id === null) return;
      const member = members.get(id);
      if (!member) {
        problems.push({
          code: 'approval_approver_unknown',
          pointer: `${pointer}/${index}`,
          message: `${entry} is no member credential of this workspace`,
        });
      } else if (member.revoked) {
        problems.push({
          code: 'approval_approver_revoked',
          pointer: `${pointer}/${index}`,
          message: `${entry} was revoked: it can approve nothing`,
        });
      }
    });
  };
  const groups = (policy.groups ?? {}) as Record<string, unknown>;
  for (const [name, members] of Object.entries(groups)) check(members, `/policy/groups/${name}`);
  const rules = (policy.rules ?? []) as { approvers?: unknown }[];
  rules.forEach((rule, index) => {
    check(rule.approvers, `/policy/rules/${index}/approvers`);
  });
  return problems;
}

/** GET /api/v1/workspaces/{ws}/approval_policy */
export const getApprovalPolicy = implement(
  OPERATION_CONTRACTS['approvalPolicy.get'],
  ({ kernel, principal }) => readApprovalPolicy(kernel.context.store, principal.workspace_id),
);

/** PUT /api/v1/workspaces/{ws}/approval_policy */
export const replaceApprovalPolicy = implement(
  OPERATION_CONTRACTS['approvalPolicy.replace'],
  async ({ kernel, principal }, input) => {
    assertPolicyTextIsUnicode({ policy: input.policy });
    const validated = validateApprovalPolicy(input.policy);
    if (!validated.ok) {
      throw new AirlockError(
        'invalid_configuration',
        `the approval policy has ${validated.problems.length} problem(s); nothing was changed`,
        validated.problems.map((p) => ({ ...p, pointer: `/policy${p.pointer}` })),
      );
    }
    const policy = validated.value as Record<string, unknown>;
    const store = kernel.context.store;
    const replaced = await store.transaction(async (tx) => {
      const before = await readApprovalPolicyToReplace(tx, principal.workspace_id);
      // Read under the workspace's lock, which a member's revocation takes too: a revocation
      // either committed first and is read here, or reads this policy to name what it strands.
      const members = await memberCredentialStates(tx, principal.workspace_id);
      const unknown = unknownMembers(policy, members);
      if (unknown.length > 0) {
        throw new AirlockError(
          'invalid_configuration',
          `the approval policy names ${unknown.length} credential(s) that are no live member of this workspace; nothing was changed`,
          unknown,
        );
      }
      if (input.expected_version !== undefined && input.expected_version !== before.version) {
        throw new AirlockError(
          'stale_digest',
          `the approval policy is at version ${before.version}, not ${input.expected_version}; read it again`,
        );
      }
      const who = principalName(principal);
      const written = await writeApprovalPolicy(tx, {
        workspaceId: principal.workspace_id,
        policy,
        principal: who,
      });
      recordPolicyChange(tx, {
        workspaceId: principal.workspace_id,
        principal: who,
        change: {
          change: 'approval_policy_replaced',
          scope: 'approval_policy',
          owner_id: principal.workspace_id,
          before_digest: before.version === 0 ? null : configurationDigest(before.policy),
          after_digest: configurationDigest(policy),
        },
        detail: `replaced the approval policy (version ${written.version})`,
      });
      // A rule naming nobody asks every live member: the workspace may have fewer than it
      // requires. Accepted (members may be added after), and named, as a revoke names it.
      const liveMembers = new Set(
        [...members].filter(([, member]) => !member.revoked).map(([id]) => `member:${id}`),
      );
      return {
        ...written,
        unreachable_approval_rules: unreachableRules(validated.value, liveMembers),
      };
    });
    // After the commit, each row in a unit of its own that locks its run first, as an approve
    // does: settling inside this unit would lock runs after the workspace's row, the other way
    // round from every approve.
    const approved = await settleMetQuorums(kernel.context, {
      workspaceId: principal.workspace_id,
      policyVersion: replaced.version,
    });
    return { ...replaced, approved_calls: approved };
  },
);
