import { isDeepStrictEqual } from 'node:util';
import type { ApprovalRequirement, Remember, Remembered, TaskView } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import { lockWorkspaceRow, type Principal, principalName } from '../../store/accounts.js';
import {
  type ApprovalRecord,
  listApprovals,
  listApprovalsAhead,
  readApprovalPolicyAhead,
  recordApproval,
} from '../../store/approvals.js';
import { type PrincipalRoster, principalRoster } from '../../store/principal-roster.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { findTaskAhead } from '../../store/tasks.js';
import { preciseNow } from '../../tracing/call-tracing.js';
import type { KernelContext } from '../context.js';
import { lockRun, readAttentionAhead, settleRun } from '../machines/run-state.js';
import { checkMove, checkStillWaiting } from '../machines/task-machine.js';
import { sendOverlaysAhead } from '../stage/active-overlays.js';
import { evaluateEditedCall } from '../stage/approval-stage.js';
import { taskVersion, taskView } from '../views.js';
import { applyEdit } from './approval-edit.js';
import { policyOfUnit, requirementOf } from './approval-quorum.js';
import { announceApproved, moveApproved } from './approved-event.js';
import {
  checkDecider,
  checkNotRevoked,
  mayApprove,
  progressOf,
  quorumReachable,
  requestOf,
  standingApprovals,
} from './approvers.js';
import { checkVersion, observeDecision, readTask, type TaskAddress } from './decisions.js';
import { rememberApproval } from './remember.js';

/** What a person sends with an approval. */
export interface ApprovalRequest {
  /** The row version the person read; the approval is refused if the row changed since. */
  version?: string | undefined;
  /** Keep an allow rule in an overlay of the rule set captured on the row (remember.ts). */
  remember?: Remember | undefined;
  /** Approve with changes: the input the call runs with, if every layer still lets it. */
  toolInput?: unknown;
  /**
   * Where the person decided, when outside the API (`Slack, <user>`, `email`): recorded on
   * the event, and shown where the call's notices are settled. Never read from a request body.
   */
  via?: string | undefined;
}

/**
 * Refuses an approval of a parked tool call or hook that the approval stage,
 * as it stands now, refuses: a deny added since the call parked (an admin's
 * guardrail above all, or a deny rule of a live overlay) binds a call that
 * has not run yet, and no approval is a way past it. The approval is refused
 * rather than the row failed: an approve never turns into a deny, nothing is
 * written, and the call keeps waiting for a person's deny or its deadline
 * (or for an approval once the deny is lifted). A question's answer runs
 * nothing and is not checked here. Nothing is written.
 * @throws AirlockError approval_refused (409) when the stage refuses the call as it would run.
 */
async function checkStageStillLets(
  ctx: KernelContext,
  tx: Tx,
  options: { run: RunTable; row: TaskTable; who: string },
): Promise<void> {
  const { run, row, who } = options;
  if (row.kind !== 'tool' && row.kind !== 'hook') return;
  const { decision } = await evaluateEditedCall(ctx, tx, {
    run,
    row,
    toolInput: JSON.parse(row.tool_input) as unknown,
    decider: who,
  });
  if (decision.outcome !== 'denied') return;
  throw new AirlockError(
    'approval_refused',
    `task ${row.key}: the approval stage refuses the call now (${decision.error?.detail ?? 'a policy layer denies it'}); nothing changed, and the call still waits for a deny or its deadline`,
  );
}

/**
 * Reads a parked row with its run's lock: on PostgreSQL the row's read goes
 * out with the lock, in one write, and runs once the lock is held.
 * @throws AirlockError run_not_found, task_not_found.
 */
async function lockRunAndRow(
  tx: Tx,
  address: TaskAddress,
): Promise<{ run: RunTable; row: TaskTable }> {
  const ahead = findTaskAhead(tx, address.runId, address.taskKey);
  const run = await lockRun(tx, address.workspaceId, address.runId);
  const row = await ahead;
  // Read again on SQLite, or to say task_not_found in the words every decision uses.
  return { run, row: row?.run_id === run.id ? row : await readTask(tx, run.id, address.taskKey) };
}

/**
 * Sends the reads an approval makes of its workspace in one write on
 * PostgreSQL, carried by the roster's read, which it starts: the approval
 * policy (which the unit then reads through policyOfUnit), the overlays the
 * approval stage weighs the call against again, and, for `row` (null after
 * an edit), the approvals already given to its version. On SQLite each is
 * read where it is needed.
 */
function readTogether(
  tx: Tx,
  run: RunTable,
  row: TaskTable | null,
): { roster: Promise<PrincipalRoster>; approvals: Promise<ApprovalRecord[]> | undefined } {
  readApprovalPolicyAhead(tx, run.workspace_id);
  if (row === null || (row.origin !== 'kernel' && (row.kind === 'tool' || row.kind === 'hook'))) {
    sendOverlaysAhead(tx, run);
  }
  const approvals =
    row === null
      ? undefined
      : listApprovalsAhead(tx, {
          workspaceId: run.workspace_id,
          runId: run.id,
          taskKey: row.key,
          rowVersion: taskVersion(row),
        });
  const roster = principalRoster(tx, run.workspace_id);
  // A refusal before the roster is read leaves it unread: not an unhandled rejection.
  roster.catch(() => {});
  return { roster, approvals };
}

/**
 * Records a member's approval of a parked row. The workspace's approval
 * policy says who may approve it and how many distinct members must; the row
 * becomes runnable for executors with the approval that meets that quorum,
 * and until then waits with a `task.approval_added` event per approval. An
 * approval counts for the row version it was given to (an edit starts the
 * count again); the same member approving twice counts once. With
 * `toolInput` the call is edited first and evaluated again by every layer;
 * under `no_self_approval` an edit the stage still parks is the editor's own
 * call: it is kept and waits for another member, the editor's approval not counted.
 * An earlier approval counts only while it stands (see standingApprovals): not
 * when its credential was revoked since, or the policy no longer lets its
 * member approve the row. Every approval, the first of a quorum as the last,
 * is refused while the approval stage refuses the call as it stands now
 * (checkStageStillLets: a guardrail added since it parked).
 * @throws AirlockError task_not_waiting (409) when the row is not at needs_approval,
 *   version_mismatch (409) when it changed since `version`, approver_not_allowed or
 *   self_approval_refused (403), approval_refused (409) when the stage refuses the call as it
 *   parked, edit_refused (422) when it refuses the edited call, remember_unavailable (422) when
 *   remembering would let one member grant what the policy wants several for.
 */
export function approveTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
  request: ApprovalRequest = {},
): Promise<TaskView> {
  const who = principalName(principal);
  const startedAt = ctx.tracing ? preciseNow() : 0;
  return ctx.store.transaction(async (tx) => {
    const parked = await lockRunAndRow(tx, address);
    const { run } = parked;
    let row = parked.row;
    checkMove('approve', row, run);
    checkStillWaiting(row, tx.now);
    if (request.version !== undefined) checkVersion(row, request.version);
    // A remember reads an overlay and writes it back: approvals remembering into one document
    // at once (calls of two runs of a conversation) take turns, each appending to the last's.
    // Taken before any row moves, in the order revocations and policy writes take it.
    if (request.remember !== undefined) await lockWorkspaceRow(tx, run.workspace_id);
    const edit =
      request.toolInput !== undefined &&
      !isDeepStrictEqual(request.toolInput, JSON.parse(row.tool_input));
    // An edit moves the row's version: the approvals given to the new one are read after it.
    const reads = readTogether(tx, run, edit ? null : row);
    const policy = await policyOfUnit(tx, run.workspace_id);
    let requirement: ApprovalRequirement = requirementOf(policy, run, row);
    const decider = { who, verb: 'approve' as const, run: requestOf(run, row), taskKey: row.key };
    // An edit approves no version it replaces: it needs a named approver, not one free to approve.
    checkDecider(requirement, edit ? { ...decider, verb: 'edit' } : decider);
    if (edit) {
      const toolInput = request.toolInput;
      const edited = await applyEdit(ctx, tx, {
        run,
        row,
        toolInput,
        who,
        policy,
        roster: reads.roster,
      });
      row = edited.row;
      requirement = edited.requirement;
      if (edited.granted) {
        // The stage grants the edit outright: it runs on the editor's approval, which the run's
        // starter or the row's appender may not give under no_self_approval.
        const asked = { created_by: run.created_by, appended_by: row.appended_by };
        checkDecider(requirement, { ...decider, run: asked });
      } else if (!mayApprove(requirement, requestOf(run, row), who)) {
        checkDecider(requirement, { ...decider, verb: 'edit' });
        // Under no_self_approval the input the editor wrote is their own call: it is kept
        // and waits for another member, their approval not counted (nor a remember kept).
        if (request.remember) {
          throw new AirlockError(
            'remember_unavailable',
            `task ${row.key}: under no_self_approval your edit is approved by another member, who may remember it; nothing changed`,
          );
        }
        const { names, revoked, liveMembers } = await reads.roster;
        checkNotRevoked(revoked, who);
        const reachable = quorumReachable(requirement, requestOf(run, row), liveMembers);
        return { ...taskView(row), approvals: progressOf(requirement, [], { names, reachable }) };
      }
    } else {
      // An edit crossed the stage already; the call as it parked crosses it again as it stands now.
      await checkStageStillLets(ctx, tx, { run, row, who });
    }
    if (request.remember && requirement.required > 1) {
      throw new AirlockError(
        'remember_unavailable',
        `task ${row.key} needs ${requirement.required} approvals: remembering it would let one member grant it alone`,
      );
    }
    const key = {
      workspaceId: run.workspace_id,
      runId: run.id,
      taskKey: row.key,
      rowVersion: taskVersion(row),
    };
    const { names, revoked, liveMembers } = await reads.roster;
    checkNotRevoked(revoked, who);
    const seen = {
      names,
      reachable: quorumReachable(requirement, requestOf(run, row), liveMembers),
    };
    // Earlier approvals count only while they stand under the policy as it reads now.
    // Who asked for the row is the same after an edit (its run's starter, its appender).
    const earlier = standingApprovals(
      requirement,
      decider.run,
      await (reads.approvals ?? listApprovals(tx, key)),
      revoked,
    );
    const again = earlier.some((approval) => approval.principal === who);
    if (again && earlier.length < requirement.required) {
      // The same member approving this version again (a double click, a retried press): it
      // counts once, so nothing is recorded, emitted or audited a second time. (When a policy
      // change lowered the quorum to what was given, it goes on and settles the row.)
      return { ...taskView(row), approvals: progressOf(requirement, earlier, seen) };
    }
    if (!again) await recordApproval(tx, { ...key, principal: who });
    const approvals = again ? earlier : [...earlier, { principal: who, created_at: tx.now }];
    const progress = progressOf(requirement, approvals, seen);
    if (approvals.length < requirement.required) {
      tx.emit({
        workspace_id: run.workspace_id,
        run_id: run.id,
        task_key: row.key,
        type: 'task.approval_added',
        data: {
          state: row.state,
          decided_by: who,
          received: approvals.length,
          required: requirement.required,
          reachable: seen.reachable,
          ...(request.via ? { via: request.via } : {}),
        },
        principal: who,
      });
      return { ...taskView(row), approvals: progress };
    }
    const ahead = readAttentionAhead(tx, run);
    const moved = await moveApproved(tx, run, row, who);
    let remembered: Remembered | null = null;
    if (request.remember) {
      remembered = await rememberApproval(tx, {
        run,
        row: moved,
        principal,
        remember: request.remember,
      });
    }
    await announceApproved(tx, run, moved, {
      decided_by: who,
      ...(requirement.required > 1 ? { approved_by: approvals.map((a) => a.principal) } : {}),
      ...(remembered ? { remembered } : {}),
      ...(request.via ? { via: request.via } : {}),
    });
    await settleRun(ctx, tx, run, ahead);
    observeDecision(ctx, tx, { row: moved, verb: 'approve', startedAt });
    return {
      ...taskView(moved),
      decided_by_name: names.get(who) ?? null,
      approvals: progress,
    };
  });
}
