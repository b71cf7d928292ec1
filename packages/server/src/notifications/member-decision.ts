import { AirlockError } from '../errors.js';
import type { KernelContext } from '../kernel/context.js';
import { approveTask } from '../kernel/verbs/approvals.js';
import { denyTask, readTask } from '../kernel/verbs/decisions.js';
import { taskVersion } from '../kernel/views.js';
import { listCredentials, type Principal } from '../store/accounts.js';

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
  /** Where it came from, for the deny reason the model reads (`Slack`, `email`). */
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
  };
}

/**
 * Decides a parked row for a mapped member through the kernel's own decision
 * path (the same as the API's approve and deny), bound to the version shown.
 * @throws AirlockError forbidden, version_mismatch, task_not_waiting, and every code approve/deny answers.
 */
export async function decideForMember(
  ctx: KernelContext,
  decision: OutsideDecision,
): Promise<{ decidedBy: string }> {
  const principal = await memberPrincipal(ctx, decision.workspaceId, decision.memberCredentialId);
  const address = {
    workspaceId: decision.workspaceId,
    runId: decision.runId,
    taskKey: decision.taskKey,
  };
  if (decision.action === 'approve') {
    const task = await approveTask(ctx, principal, address, { version: decision.version });
    return { decidedBy: task.decided_by ?? '' };
  }
  // Deny takes no version: the row is read first, and the deny itself still needs it parked.
  const row = await readTask(ctx.store, decision.runId, decision.taskKey);
  if (taskVersion(row) !== decision.version) {
    throw new AirlockError(
      'version_mismatch',
      `task ${row.key} changed since it was shown; open it in the inbox`,
    );
  }
  const task = await denyTask(ctx, principal, address, `denied by a person (${decision.via})`);
  return { decidedBy: task.decided_by ?? '' };
}
