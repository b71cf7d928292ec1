import { AirlockError } from '../../errors.js';
import {
  countActiveMembersOf,
  forgetCredentials,
  hasActiveExecutor,
  lockWorkspaceRow,
  revokeActiveCredential,
} from '../../store/accounts.js';
import { anyApplicationRemoved, markApplicationRemoved } from '../../store/applications.js';
import { carryApprovals } from '../../store/approvals.js';
import { hasActiveAdmin, principalRoster } from '../../store/principal-roster.js';
import { runningRunIdsOf, runningRunsOfRemovedApplications } from '../../store/runs.js';
import type { Store, Tx } from '../../store/store.js';
import { clearAddressee } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { abortRunModelRequest } from '../loop/model-stop.js';
import { endRun } from '../machines/run-machine.js';
import { lockRun } from '../machines/run-state.js';
import { TASK_VERBS } from '../machines/task-machine.js';
import { taskVersion } from '../views.js';
import { recordApplicationChange, recordCredentialRevoked } from './account-changes.js';
import { policyOfWorkspace } from './approval-quorum.js';
import { type UnreachableRule, unreachableRules } from './approvers.js';
import { dropRevokedMemberAllows } from './revoked-allows.js';

/** A held row whose addressee was cleared. */
export interface Readdressed {
  run_id: string;
  task_key: string;
}

/** What a revocation did. */
export interface Revocation {
  credential_id: string;
  kind: 'agent' | 'executor' | 'member';
  readdressed: Readdressed[];
  /**
   * The approval policy rules the workspace's live members can no longer meet once this
   * member is revoked (empty for an agent or executor credential).
   */
  unreachable_approval_rules: UnreachableRule[];
}

/**
 * Clears the addressee of the rows held for an agent application (parks and
 * questions): they leave its executor inbox and nudges, and the member door
 * still answers them. Each emits `task.readdressed` with its own detail.
 */
async function readdressHeldRows(
  tx: Tx,
  options: { agentApplicationId: string; detail: string; principal: string },
): Promise<Readdressed[]> {
  const changed = await clearAddressee(tx, {
    addressee: options.agentApplicationId,
    states: TASK_VERBS.readdress.from,
  });
  for (const { before, after: row } of changed) {
    // A parked row's approvals were given to what it asks, which a new addressee does not change.
    await carryApprovals(tx, {
      workspaceId: row.workspace_id,
      runId: row.run_id,
      taskKey: row.key,
      from: taskVersion(before),
      to: taskVersion(row),
    });
    tx.emit({
      workspace_id: row.workspace_id,
      run_id: row.run_id,
      task_key: row.key,
      type: 'task.readdressed',
      data: {
        state: row.state,
        addressee: null,
        previous_addressee: options.agentApplicationId,
        reason: 'executor_revoked',
        detail: options.detail,
      },
      principal: options.principal,
    });
  }
  return changed.map(({ after }) => ({ run_id: after.run_id, task_key: after.key }));
}

/** The approval policy rules whose quorum the workspace's live members cannot meet now. */
async function unreachableNow(tx: Tx, workspaceId: string): Promise<UnreachableRule[]> {
  const [policy, { liveMembers }] = await Promise.all([
    policyOfWorkspace(tx, workspaceId),
    principalRoster(tx, workspaceId),
  ]);
  return unreachableRules(policy, liveMembers);
}

/**
 * Revokes a credential named by its id or its token (within a workspace when
 * one is given). Revoking an application's last active executor credential
 * readdresses the rows held for that application to nobody instead of
 * failing them. The credential stops working on its next request. With
 * `keepAnAdmin` (the member plane), the workspace's last active admin member
 * credential is refused: no one would be left to make credentials or set
 * policy through the API. The operator's local `airlock token revoke` leaves
 * it out, since the operator can always make a new admin from the store.
 * A member whose revocation leaves an approval policy rule fewer live
 * approvers than it requires is revoked all the same; the answer names each
 * such rule (`unreachable_approval_rules`) and the calls they cover show
 * `reachable: false` in their approval progress.
 * @throws AirlockError credential_not_found when no active credential matches;
 *   last_admin (409) when `keepAnAdmin` and it is the last active admin.
 */
export async function revokeCredentialAndReaddress(
  store: Store,
  options: {
    idOrToken: string;
    workspaceId?: string | undefined;
    principal: string;
    keepAnAdmin?: boolean;
  },
): Promise<Revocation> {
  const revocation = await store.transaction(async (tx) => {
    const credential = await revokeActiveCredential(tx, options);
    if (!credential) {
      throw new AirlockError('credential_not_found', 'no such active credential in this workspace');
    }
    if (options.keepAnAdmin === true && credential.role === 'admin') {
      // Locked after the update: two admins revoking each other take turns here, and the second
      // counts the first's revocation (and the lock is taken in the order a commit takes it).
      await lockWorkspaceRow(tx, credential.workspace_id);
      if (!(await hasActiveAdmin(tx, credential.workspace_id))) {
        throw new AirlockError(
          'last_admin',
          `credential ${credential.id} is the workspace's last active admin; make another admin member credential first (role admin), then revoke this one`,
        );
      }
    }
    recordCredentialRevoked(tx, {
      workspaceId: credential.workspace_id,
      principal: options.principal,
      credential: { ...credential, credential_id: credential.id },
    });
    if (credential.kind === 'member') {
      // A remember takes this lock before it reads a document (approvals.ts): one the member
      // sent meanwhile either wrote first, and its allow is dropped here, or reads it revoked.
      await lockWorkspaceRow(tx, credential.workspace_id);
      await dropRevokedMemberAllows(tx, {
        workspaceId: credential.workspace_id,
        credentialId: credential.id,
        principal: options.principal,
      });
    }
    const result: Revocation = {
      credential_id: credential.id,
      kind: credential.kind,
      readdressed: [],
      // Read after the revocation, in its unit: the revoke goes ahead (a leaked token must stop
      // at once), and its answer names the quorums it leaves no one to meet.
      unreachable_approval_rules:
        credential.kind === 'member' ? await unreachableNow(tx, credential.workspace_id) : [],
    };
    const app = credential.agent_application_id;
    if (credential.kind !== 'executor' || !app) return result;
    // Another live executor of the application still watches its rows.
    if (await hasActiveExecutor(tx, app)) return result;
    result.readdressed = await readdressHeldRows(tx, {
      agentApplicationId: app,
      principal: options.principal,
      detail: `executor credential ${credential.id} was revoked and ${app} has no other executor; a member answers this row`,
    });
    return result;
  });
  forgetCredentials(store);
  return revocation;
}

/**
 * Removes an agent application: every credential of it is fenced at once
 * (refused from the next request), and its running runs are force-stopped
 * asynchronously by the clocks sweep ({@link stopRunsOfRemovedApplications}).
 * Refused while active member credentials belong to it: fencing them would
 * lock those members (perhaps every operator) out. Removing one already
 * removed answers its first removal. Returns the runs that will be stopped.
 * @throws AirlockError agent_application_not_found; application_has_member_credentials.
 */
export async function removeAgentApplication(
  ctx: KernelContext,
  options: { workspaceId: string; agentApplicationId: string; principal: string },
): Promise<{ removed_at: number; stopping_run_ids: string[] }> {
  const app = options.agentApplicationId;
  const removal = await ctx.store.transaction(async (tx) => {
    const marked = await markApplicationRemoved(tx, options);
    if (marked === undefined) {
      throw new AirlockError(
        'agent_application_not_found',
        `no agent application ${app} in this workspace`,
      );
    }
    // Counted after the mark, which locks the application row: a member credential being made
    // for it has committed (and is counted) or waits and then finds it removed. A refusal rolls
    // the mark back.
    const members = marked.newly ? await countActiveMembersOf(tx, app) : 0;
    if (members > 0) {
      throw new AirlockError(
        'application_has_member_credentials',
        `agent application ${app} has ${members} active member credential(s); removing it would fence them ` +
          'and lock those members out. Make a member credential that outlives it (a workspace-level one: ' +
          'airlock tokens create --kind member --workspace-level), revoke these, then remove it',
      );
    }
    if (marked.newly) {
      recordApplicationChange(tx, {
        workspaceId: options.workspaceId,
        principal: options.principal,
        applicationId: app,
        change: 'agent_application_removed',
      });
    }
    const running = await runningRunIdsOf(tx, app);
    return { removed_at: marked.removedAt, stopping_run_ids: running };
  });
  forgetCredentials(ctx.store);
  setImmediate(() => {
    void stopRunsOfRemovedApplications(ctx).catch((error: unknown) => {
      ctx.logger.error({ err: error }, 'stopping the runs of a removed application failed');
    });
  });
  return removal;
}

/**
 * Force-stops the running runs of removed agent applications through the
 * ordinary stop path (their held rows are canceled, and a model request this
 * kernel has in flight for one is aborted, as a member's stop does). Swept with the clocks,
 * so a removal survives a restart; returns how many runs it stopped.
 */
export async function stopRunsOfRemovedApplications(ctx: KernelContext): Promise<number> {
  // The join below reads every running run: skip it while no application is removed.
  if (!(await anyApplicationRemoved(ctx.store))) return 0;
  const due = await runningRunsOfRemovedApplications(ctx.store, 200);
  let stopped = 0;
  for (const row of due) {
    stopped += await ctx.store.transaction(async (tx) => {
      const run = await lockRun(tx, row.workspace_id, row.id);
      if (run.state !== 'running') return 0;
      await endRun(tx, run, {
        state: 'canceled',
        error: {
          code: 'agent_application_removed',
          detail: `agent application ${row.agent_application_id} was removed`,
        },
        principal: 'kernel',
      });
      // A round this kernel is asking for the run would only be dropped: its request stops now.
      tx.afterCommit(() => abortRunModelRequest(ctx, row.id));
      return 1;
    });
  }
  return stopped;
}
