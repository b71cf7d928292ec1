/*
 * One page of a workspace's waiting rows looked at under its approval policy as it reads now:
 * each row whose standing approvals meet it is approved, in a unit of its own.
 */
import { isAirlockError } from '../../errors.js';
import {
  listApprovals,
  listParkedWithApprovals,
  type ParkedRowCursor,
  readApprovalPolicyOnce,
} from '../../store/approvals.js';
import { principalRoster } from '../../store/principal-roster.js';
import { findTask } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { lockRunIfAny, readAttentionAhead, settleRun } from '../machines/run-state.js';
import { checkMove, checkStillWaiting } from '../machines/task-machine.js';
import { evaluateEditedCall } from '../stage/approval-stage.js';
import { taskVersion } from '../views.js';
import { decisionViews, policyOfUnit, requirementOf } from './approval-quorum.js';
import { announceApproved, moveApproved } from './approved-event.js';
import { requestOf, standingApprovals } from './approvers.js';

/** A parked row a policy change approved. */
export interface SettledCall {
  run_id: string;
  task_key: string;
}

/** What one page settled, and where the next page starts (null: this was the last). */
export interface SettledPage {
  settled: SettledCall[];
  /** How many parked rows the page read. */
  read: number;
  /** How many met rows' units failed (each left waiting, to be looked at again). */
  failed: number;
  next: ParkedRowCursor | null;
}

/**
 * Reads one page of the workspace's parked rows holding approvals (oldest first, after
 * `after`) and approves each whose standing approvals meet what the approval policy asks of it
 * now (see settleOne). A row whose unit fails is logged, counted in `failed` and left waiting;
 * the page goes on.
 * @throws what the store throws reading the page (nothing was approved then).
 */
export async function settlePage(
  ctx: KernelContext,
  options: { workspaceId: string; limit: number; after: ParkedRowCursor | null },
): Promise<SettledPage> {
  const candidates = await listParkedWithApprovals(ctx.store, options.workspaceId, options);
  // Read without locks first: a unit of its own only for a row that looks met now.
  const views = await decisionViews(ctx.store, options.workspaceId, candidates);
  const met = views.filter(
    (view) =>
      view.approvals !== undefined && view.approvals.received.length >= view.approvals.required,
  );
  const settled: SettledCall[] = [];
  let failed = 0;
  for (const candidate of met) {
    const address = { workspaceId: options.workspaceId, runId: candidate.run_id };
    try {
      if (await settleOne(ctx, { ...address, taskKey: candidate.key })) {
        settled.push({ run_id: candidate.run_id, task_key: candidate.key });
      }
    } catch (error) {
      // Left waiting for now: the page goes on, and the caller has the row looked at again.
      failed += 1;
      ctx.logger.warn(
        { err: error, runId: candidate.run_id, taskKey: candidate.key },
        'approving a call its standing approvals meet failed',
      );
    }
  }
  const last = candidates.at(-1);
  const next =
    last === undefined || candidates.length < options.limit
      ? null
      : { created_at: last.created_at, run_id: last.run_id, key: last.key };
  return { settled, read: candidates.length, failed, next };
}

/**
 * Approves one parked row if its standing approvals meet the policy now; whether it did. The
 * unit takes the run's lock first, as an approve does (never the workspace's row before a
 * run's), and reads the row, the policy and the approvals of the row's current version afresh,
 * so a row an approve settled meanwhile, or whose version moved, is left alone, and a row is
 * approved once however many kernels look at it. A row the approval stage refuses now (a
 * guardrail added since it parked), whose deadline passed, or whose run no longer runs is left
 * waiting. The deciding member is the row's last standing approver; `task.approved` names every
 * approver and the policy version this unit read.
 */
async function settleOne(
  ctx: KernelContext,
  address: { workspaceId: string; runId: string; taskKey: string },
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
    // The version that approves it is the one read here: a later put may have replaced the
    // one whose settle looks at this row.
    const { version } = await readApprovalPolicyOnce(tx, run.workspace_id);
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
    const moved = await moveApproved(tx, run, row, last.principal);
    await announceApproved(tx, run, moved, {
      decided_by: last.principal,
      approved_by: standing.map((approval) => approval.principal),
      via: `approval policy version ${version}`,
    });
    await settleRun(ctx, tx, run, ahead);
    return true;
  });
}
