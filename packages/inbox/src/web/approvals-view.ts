import { type Approval, type Decision, visibleText } from '@airlock/sdk';
import { relativeTime } from './clock.js';
import { h, isolated } from './dom.js';
import { approvalsWords } from './format.js';

/**
 * "1 of 2 approvals" when the workspace's approval policy asks several for
 * this call or an approval was given; null otherwise.
 */
export function approvalsCount(decision: Approval): string | null {
  const progress = decision.approvals;
  return progress ? approvalsWords(progress.received.length, progress.required) : null;
}

/**
 * Whether fewer live members may approve this call than its quorum requires
 * (an approver revoked since the policy was written, or no_self_approval
 * barring the requester): it waits for its deadline unless the policy
 * changes. False for a question, and for a kernel older than the field.
 */
export function cannotBeApproved(decision: Decision): boolean {
  return decision.isApproval() && decision.approvals?.reachable === false;
}

/**
 * "1 of 2 approvals (Ana Lima)": how far a parked call is toward the quorum
 * the workspace's approval policy asks for; null when one approval decides it
 * and none was given yet.
 */
export function approvalsView(decision: Approval): HTMLElement | null {
  const count = approvalsCount(decision);
  if (count === null) return null;
  // Each name apart: two right-to-left names would otherwise show in each other's place.
  const who = (decision.approvals?.received ?? []).flatMap((entry, index) => [
    index === 0 ? ' (' : ', ',
    isolated(visibleText(entry.name ?? entry.principal, { oneLine: true })),
  ]);
  return h(
    'p',
    { class: 'approvals', 'aria-label': 'approvals' },
    count,
    ...who,
    who.length > 0 ? ')' : '',
  );
}

/**
 * The words, on a card or a run story's parked row, for a call too few members can approve ("Too few members
 * can approve this call; …, or it expires in 23 h."), in text, not colour
 * alone; null while its quorum can be met.
 */
export function unreachableView(parked: {
  approvals?: { required: number; reachable?: boolean } | null | undefined;
  deadline_at: number | null;
}): HTMLElement | null {
  if (parked.approvals?.reachable !== false) return null;
  const { required } = parked.approvals;
  return h(
    'p',
    { class: 'unreachable', 'data-reachable': 'false' },
    h('strong', {}, 'Too few members can approve this call'),
    ` (it needs ${required} approval${required === 1 ? '' : 's'}); an admin can change the workspace's approval policy, or it `,
    ...(parked.deadline_at
      ? ['expires ', relativeTime(parked.deadline_at, 'until'), '.']
      : ['waits until its run is stopped.']),
  );
}
