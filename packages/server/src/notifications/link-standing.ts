import { decisionViews } from '../kernel/verbs/approval-quorum.js';
import { taskVersion } from '../kernel/views.js';
import { listApprovals } from '../store/approvals.js';
import type { TaskTable } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { findTask } from '../store/tasks.js';
import type { ActionClaim } from './action-links.js';
import { describeOutcome } from './member-decision.js';

/**
 * Whether an email action link may still decide, and when not, what a person
 * opening it is told. A mail's two links (approve, deny) are one decision of
 * one member: they are spent once that member's approval of the version they
 * name is recorded (from this mail, a forwarded copy, or elsewhere), or once
 * the call stops waiting at that version. A later use shows what happened and
 * changes nothing, so a link that leaked after use (a forwarded mail, a
 * proxy's log) decides nothing. Nothing is stored for this: the approval and
 * the row's version already say it.
 */
export type LinkStanding =
  | { open: true; row: TaskTable }
  | { open: false; title: string; text: string };

/** What became of a row that no longer waits, in the words of a settled Slack message. */
export function whatBecame(row: TaskTable, decider: string): string {
  if (row.state === 'timed_out') return 'Expired: nobody decided in time';
  if (row.state === 'failed' && row.error_code === 'approval_denied') {
    return `Denied by ${decider}`;
  }
  if (row.state === 'canceled') {
    return row.decided_by ? `Canceled by ${decider}` : 'Canceled: the run ended or was stopped';
  }
  return row.decided_by ? `Approved by ${decider}` : 'It no longer waits for a decision';
}

/** How a link stands now; reads the row, and the approvals of the version it names. */
export async function linkStanding(store: Store, claim: ActionClaim): Promise<LinkStanding> {
  const row = await findTask(store, claim.run_id, claim.task_key);
  const [view] = row ? await decisionViews(store, claim.workspace_id, [row]) : [];
  if (!row || !view) {
    return { open: false, title: 'This link no longer applies', text: 'The call is gone.' };
  }
  const decider = view.decided_by_name
    ? `${view.decided_by_name} (${row.decided_by})`
    : (row.decided_by ?? 'someone');
  if (row.state !== 'needs_approval') {
    return { open: false, title: 'This call was already decided', text: whatBecame(row, decider) };
  }
  if (taskVersion(row) !== claim.version) {
    return {
      open: false,
      title: 'This link no longer applies',
      text: 'The call changed since this mail was sent (it was edited, or waits again): this link decides nothing now. Open it in the Airlock inbox',
    };
  }
  const member = `member:${claim.member}`;
  const given = await listApprovals(store, {
    workspaceId: claim.workspace_id,
    runId: claim.run_id,
    taskKey: claim.task_key,
    rowVersion: claim.version,
  });
  if (!given.some((approval) => approval.principal === member)) return { open: true, row };
  const received = view.approvals?.received.length ?? given.length;
  const required = view.approvals?.required ?? received;
  const name = view.approvals?.received.find((r) => r.principal === member)?.name;
  const who = name ? `${name} (${member})` : member;
  const progress =
    received < required
      ? describeOutcome(
          'approve',
          {
            decided: false,
            by: who,
            approvals: { received, required, reachable: view.approvals?.reachable !== false },
          },
          who,
        )
      : `${who} approved this call`;
  return {
    open: false,
    title: 'Your decision is already recorded',
    text: `${progress}. This mail’s links are single use: they decide nothing more`,
  };
}
