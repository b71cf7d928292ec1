import { type ApprovalPolicy, canonicalJson, type OverlayDocument } from '@airlock/core';
import type { Principal } from '../../store/accounts.js';
import type { Reader } from '../../store/reader.js';
import { policyOfWorkspace } from './approval-quorum.js';
import { requireAdmin } from './member-roles.js';

/**
 * Who may write an allow rule. An overlay's allow grants the calls it covers
 * with no approval at all, so while the approval policy asks more of some
 * call than one approval by any member, an approver's allow (an overlay
 * write or a remember) would let them grant alone what the policy keeps
 * from them. Then only an admin, who sets the policy anyway, writes one.
 */

/**
 * Whether the policy asks more of some call than one approval by any member:
 * a rule names its approvers or asks more than one approval, or
 * no_self_approval is on.
 */
export function policyAsksMoreThanAnyMember(policy: ApprovalPolicy | null): boolean {
  if (policy === null) return false;
  if (policy.no_self_approval === true) return true;
  return (policy.rules ?? []).some(
    (rule) => rule.approvers !== undefined || (rule.required ?? 1) > 1,
  );
}

/**
 * Refuses an approver's new allow rule while the workspace's approval policy
 * asks more than one approval by any member for some call; deny and ask rules
 * stay open to every member.
 * @throws AirlockError admin_required (403), naming what was refused and why.
 */
export async function checkAllowWriter(
  reader: Reader,
  principal: Principal,
  what: string,
): Promise<void> {
  if (principal.kind !== 'member' || principal.role === 'admin') return;
  if (!policyAsksMoreThanAnyMember(await policyOfWorkspace(reader, principal.workspace_id))) return;
  requireAdmin(
    principal,
    `${what} while the approval policy names approvers, asks more than one approval or forbids self-approval`,
  );
}

/** Whether a document holds an allow rule (for its rule set) that the earlier one did not. */
export function addsAllowRule(before: OverlayDocument, after: OverlayDocument): boolean {
  const allows = (document: OverlayDocument) =>
    document.flatMap((group) =>
      group.rules
        .filter((rule) => rule.verdict === 'allow')
        .map((rule) => `${group.ruleSetId}\0${canonicalJson(rule)}`),
    );
  const kept = new Set(allows(before));
  return allows(after).some((rule) => !kept.has(rule));
}
