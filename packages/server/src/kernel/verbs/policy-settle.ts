/*
 * A replaced approval policy may ask less of a waiting call than the approvals it already has
 * (a lowered `required`, an added approver who had approved): such a call is approved at once,
 * as the approval that completes a quorum approves it.
 */
import { isAirlockError } from '../../errors.js';
import { listApprovals, listParkedWithApprovals } from '../../store/approvals.js';
import { principalRoster } from '../../store/principal-roster.js';
import { findTask } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { moveTask } from '../machines/move-task.js';
import { lockRunIfAny, readAttentionAhead, settleRun } from '../machines/run-state.js';
import { checkMove, checkStillWaiting } from '../machines/task-machine.js';
import { evaluateEditedCall } from '../stage/approval-stage.js';
import { taskVersion } from '../views.js';
import { decisionViews, policyOfUnit, requirementOf } from './approval-quorum.js';
import { announceApproved } from './approved-event.js';
import { requestOf, standingApprovals } from './approvers.js';

/** How many waiting rows one policy change settles; a row past it runs on its next approval. */
export const POLICY_SETTLE_LIMIT = 500;

/** A parked row a policy change approved. */
export interface SettledCall {
  run_id: string;
  task_key: string;
}

/**
 * Approves every parked row of the workspace (up to {@link POLICY_SETTLE_LIMIT}, oldest first)
 * whose standing approvals now meet what the approval policy asks of it. Each row is settled in
 * a unit of its own that takes its run's lock first, as an approve does (never the workspace's
 * row before a run's): it reads the row, the policy and the approvals of the row's current
 * version afresh there, so a row an approve settled meanwhile, or whose version moved, is left
 * alone, and a row is approved once. A row the approval stage refuses now (a guardrail added
 * since it parked), whose deadline passed, or whose run no longer runs is left waiting. The
 * deciding member is the row's last standing approver; `task.approved` names every approver.
 * Returns the rows it approved; never throws (the policy was written before it runs: a row it
 * could not settle runs on its next approval).
 */
export async function settleMetQuorums(
  ctx: KernelContext,
  options: { workspaceId: string; policyVersion: number },
): Promise<SettledCall[]> {
  const settled: SettledCall[] = [];
  try {
    const candidates = await listParkedWithApprovals(
      ctx.store,
      options.workspaceId,
      POLICY_SETTLE_LIMIT,
    );
    // Read without locks first: a unit of its own only for a row that looks met now.
    const views = await decisionViews(ctx.store, options.workspaceId, candidates);
    const met = views.filter(
      (view) =>
        view.approvals !== undefined && view.approvals.received.length >= view.approvals.required,
    );
    for (const candidate of met) {
      const approved = await settleOne(ctx, {
        workspaceId: options.workspaceId,
        runId: candidate.run_id,
        taskKey: candidate.key,
        via: `approval policy version ${options.policyVersion}`,
      });
      if (approved) settled.push({ run_id: candidate.run_id, task_key: candidate.key });
    }
  } catch (error) {
    // The policy is written already: its answer must not say otherwise. A row left waiting
    // runs on its next approval, as before this pass.
    ctx.logger.warn({ err: error }, 'settling calls a replaced approval policy approves stopped');
  }
  return settled;
}

/** Approves one parked row if its standing approvals meet the policy now; whether it did. */
async function settleOne(
  ctx: KernelContext,
  address: { workspaceId: string; runId: string; taskKey: string; via: string },
): Promise<boolean> {
  return ctx.store.transaction(async (tx) => {
    const run = await lockRunIfAny(tx, address.workspaceId, address.runId);
    const row = run ? await findTask(tx, run.id, address.taskKey) : undefined;
    if (!run || !row || row.state !== 'needs_approval') return false;
    try {
      checkMove('approve', row, run);
      checkStillWaiting(row, tx.now);
    } catch (error) {
      if (isAirlockError(error)) return false;
      throw error;
    }
    const requirement = requirementOf(await policyOfUnit(tx, run.workspace_id), run, row);
    const [{ revoked }, given] = await Promise.all([
      principalRoster(tx, run.workspace_id),
      listApprovals(tx, {
        workspaceId: run.workspace_id,
        runId: run.id,
        taskKey: row.key,
        rowVersion: taskVersion(row),
      }),
    ]);
    const standing = standingApprovals(requirement, requestOf(run, row), given, revoked);
    const last = standing.at(-1);
    if (!last || standing.length < requirement.required) return false;
    if (row.kind === 'tool' || row.kind === 'hook') {
      // The call as it parked crosses the stage again as it stands now, as each approval's does.
      const { decision } = await evaluateEditedCall(ctx, tx, {
        run,
        row,
        toolInput: JSON.parse(row.tool_input) as unknown,
        decider: last.principal,
      });
      if (decision.outcome === 'denied') return false;
    }
    const ahead = readAttentionAhead(tx, run);
    const moved = await moveTask(tx, {
      verb: 'approve',
      run,
      key: row.key,
      to: 'runnable',
      from: row.state,
      set: { deadline_at: null, decided_by: last.principal },
      event: null,
      principal: last.principal,
    });
    await announceApproved(tx, run, moved, {
      decided_by: last.principal,
      approved_by: standing.map((approval) => approval.principal),
      via: address.via,
    });
    await settleRun(ctx, tx, run, ahead);
    return true;
  });
}
