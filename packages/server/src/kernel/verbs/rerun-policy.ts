import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { mayApprove, policyOfUnit, requestOf, requirementOf } from './approval-quorum.js';

/**
 * Holds a retry that would run a failed call again to the approval policy,
 * when people approved the call at a park before it ran: running it again
 * is a new decision to run it. The retry runs it at once only where the
 * policy lets the retrier alone approve it (one approval needed, the
 * retrier among its approvers and not barred by `no_self_approval`);
 * otherwise the row parks again for the policy, its approvals started
 * afresh. Answers how many approvals the parked row needs, or null when
 * the retry runs the call (no policy, a row that never parked, or a
 * retrier who may approve it alone).
 */
export async function approvalsToRunAgain(
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  retrier: string,
): Promise<number | null> {
  if (row.kind !== 'tool' || !wasParked(row)) return null;
  const policy = await policyOfUnit(tx, run.workspace_id);
  if (policy === null) return null;
  const requirement = requirementOf(policy, run, row);
  if (requirement.required === 1 && mayApprove(requirement, requestOf(run, row), retrier)) {
    return null;
  }
  return requirement.required;
}

/** Whether the approval stage parked the row for people before it ran. */
function wasParked(row: Pick<TaskTable, 'decision'>): boolean {
  if (row.decision === null) return false;
  return (JSON.parse(row.decision) as { outcome?: unknown }).outcome === 'parked';
}
