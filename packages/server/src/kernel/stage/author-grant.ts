import type { ActionTag, Decision } from '@airlock/core';
import { recordApproval } from '../../store/approvals.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { mayApprove, policyOfUnit, requirementOfCall } from '../verbs/approval-quorum.js';
import { taskVersion } from '../views.js';

/**
 * An author row is granted by its origin because whoever appended it could
 * have approved it. Under an approval policy that holds only where the policy
 * lets that member alone approve the call; elsewhere the row parks for the
 * policy like a model call, and the appender's own approval counts first
 * when the policy lets them give one. A member's standalone run is the same:
 * its mode and rules are the member's own create call, so a model call they
 * grant is that member's own word and is held to the same test.
 */

/** What the approval policy makes of a row the stage decided. */
export interface PolicyBoundDecision {
  decision: Decision;
  /** The appender's approval to count on the parked row, with the quorum it counts toward. */
  appenderApproval: { principal: string; required: number } | null;
}

/**
 * Whether a grant is a member's own word: an author row granted by its
 * origin, or, on a member's standalone run (no agent application; the
 * member's create call declared its mode, rules and hooks), a model call
 * granted by that mode or a rule and a hook granted by its origin. An
 * agent's declaration is not a member's.
 */
function isMembersOwnGrant(
  run: Pick<RunTable, 'agent_application_id' | 'created_by'>,
  decision: Decision,
  row: { origin: TaskTable['origin']; kind: TaskTable['kind'] },
): boolean {
  if (decision.outcome !== 'granted') return false;
  if (row.origin === 'author') return decision.granted_by === 'origin';
  if (run.agent_application_id !== null || !run.created_by.startsWith('member:')) return false;
  if (row.origin === 'kernel') return row.kind === 'hook' && decision.granted_by === 'origin';
  return decision.granted_by === 'mode' || decision.granted_by === 'rule';
}

/**
 * Holds a member's own grant (an author row's grant by origin, a call or hook
 * granted by a member's standalone run) to the workspace's approval policy:
 * it stands when one approval is needed and `principal`, who asks for the
 * row (the appender, the run's starter, an editor or retrier), may give it
 * (not a named-approver rule leaving them out, not under `no_self_approval`,
 * which bars a member from approving a row they appended or a call of a run
 * they started); otherwise the decision becomes a park. Any other decision
 * passes unchanged. `actionTags` is read only when a policy is set.
 */
export async function bindAuthorGrant(
  tx: Tx,
  run: RunTable,
  options: {
    decision: Decision;
    origin: TaskTable['origin'];
    kind: TaskTable['kind'];
    /** The name the model (or the appender) called the tool by, before aliases. */
    calledName: string;
    principal: string | null;
    actionTags: () => readonly ActionTag[];
  },
): Promise<PolicyBoundDecision> {
  const { decision, principal } = options;
  const unchanged = { decision, appenderApproval: null };
  if (!isMembersOwnGrant(run, decision, options)) return unchanged;
  const policy = await policyOfUnit(tx, run.workspace_id);
  if (policy === null) return unchanged;
  const requirement = requirementOfCall(policy, run, {
    toolName: decision.tool_name,
    calledName: options.calledName,
    actionTags: options.actionTags(),
  });
  // The appender or starter (or the editor, the retrier) asks for the row: under
  // no_self_approval they may not approve it themselves.
  const approves =
    principal !== null &&
    mayApprove(requirement, { created_by: run.created_by, appended_by: principal }, principal);
  if (approves && requirement.required === 1) return unchanged;
  return {
    decision: { ...decision, outcome: 'parked', granted_by: null },
    appenderApproval: approves ? { principal, required: requirement.required } : null,
  };
}

/**
 * Records the appender's approval of the author row that just parked for the
 * policy, as an approve would (a `task.approval_added` event and its audit line).
 */
export async function countAppenderApproval(
  tx: Tx,
  row: TaskTable,
  approval: { principal: string; required: number },
): Promise<void> {
  await recordApproval(tx, {
    workspaceId: row.workspace_id,
    runId: row.run_id,
    taskKey: row.key,
    rowVersion: taskVersion(row),
    principal: approval.principal,
  });
  tx.emit({
    workspace_id: row.workspace_id,
    run_id: row.run_id,
    task_key: row.key,
    type: 'task.approval_added',
    data: {
      state: row.state,
      decided_by: approval.principal,
      received: 1,
      required: approval.required,
    },
    principal: approval.principal,
  });
}
