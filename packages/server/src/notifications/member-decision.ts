import { AirlockError } from '../errors.js';
import type { KernelContext } from '../kernel/context.js';
import { approveTask } from '../kernel/verbs/approvals.js';
import { denyTask } from '../kernel/verbs/decisions.js';
import { listCredentials, type Principal, principalName } from '../store/accounts.js';

/** A decision arriving from outside the API (a Slack button, an email link). */
export interface OutsideDecision {
  workspaceId: string;
  /** The member credential the person is mapped to. */
  memberCredentialId: string;
  runId: string;
  taskKey: string;
  /** The row version the person was shown. */
  version: string;
  action: 'approve' | 'deny';
  /**
   * Where it came from (`Slack, <user>`, `email`): in the deny reason the model reads, and on
   * the decision's event.
   */
  via: string;
}

/**
 * The member a channel maps a person to, as the kernel's principal.
 * @throws AirlockError forbidden when the credential is not an active member credential of the workspace.
 */
export async function memberPrincipal(
  ctx: KernelContext,
  workspaceId: string,
  credentialId: string,
): Promise<Principal> {
  const credentials = await listCredentials(ctx.store, workspaceId);
  const found = credentials.find((c) => c.credential_id === credentialId);
  if (found?.kind !== 'member' || found.revoked_at !== null) {
    throw new AirlockError(
      'forbidden',
      'you are not mapped to an active member credential of this workspace',
    );
  }
  return {
    credential_id: found.credential_id,
    kind: 'member',
    workspace_id: found.workspace_id,
    agent_application_id: found.agent_application_id,
    role: found.role,
  };
}

/** What a decision from outside did to the row. */
export interface MemberDecisionOutcome {
  /** True once the row left needs_approval: approved (enough approvals) or denied. */
  decided: boolean;
  /** Who decided, as the kernel names a principal (`member:cred_…`). */
  by: string;
  /**
   * Approvals given and needed when the approval policy asks more than one, and whether enough
   * members may still approve to reach it (a revoke can leave too few); else null.
   */
  approvals: { received: number; required: number; reachable: boolean } | null;
}

/**
 * Decides a parked row for a mapped member through the kernel's own decision
 * path (the same as the API's approve and deny), bound to the version shown:
 * the version is checked in the decision's own transaction.
 * @throws AirlockError forbidden, version_mismatch, task_not_waiting, and every code approve/deny answers.
 */
export async function decideForMember(
  ctx: KernelContext,
  decision: OutsideDecision,
): Promise<MemberDecisionOutcome> {
  const principal = await memberPrincipal(ctx, decision.workspaceId, decision.memberCredentialId);
  const address = {
    workspaceId: decision.workspaceId,
    runId: decision.runId,
    taskKey: decision.taskKey,
  };
  const by = principalName(principal);
  if (decision.action === 'approve') {
    const task = await approveTask(ctx, principal, address, {
      version: decision.version,
      via: decision.via,
    });
    const required = task.approvals?.required ?? 1;
    return {
      decided: task.state !== 'needs_approval',
      by,
      approvals:
        required > 1
          ? {
              received: task.approvals?.received.length ?? 0,
              required,
              reachable: task.approvals?.reachable !== false,
            }
          : null,
    };
  }
  const reason = `denied by a person (${decision.via})`;
  await denyTask(ctx, principal, address, reason, decision.version, decision.via);
  return { decided: true, by, approvals: null };
}

/**
 * What a person is told of their decision: who decided, or, while a policy
 * waits for more approvals, how many it has ("1 of 2 approvals").
 */
export function describeOutcome(
  action: OutsideDecision['action'],
  outcome: MemberDecisionOutcome,
  who: string,
): string {
  const name = who === outcome.by ? who : `${who} (${outcome.by})`;
  if (!outcome.decided && outcome.approvals) {
    const { received, required, reachable } = outcome.approvals;
    const given = `${name} approved: ${received} of ${required} approvals`;
    // As the inbox says it: waiting for approvals that cannot come would mislead.
    if (!reachable) {
      return `${given}, but too few members can approve this call to complete it: an admin can change the workspace's approval policy, or it waits until its deadline`;
    }
    return `${given}, waiting for ${required - received} more`;
  }
  return `${action === 'approve' ? 'Approved' : 'Denied'} by ${name}`;
}
