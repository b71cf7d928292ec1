import { type Approval, visibleText } from '@airlock/sdk';
import { h } from './dom.js';
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
 * "1 of 2 approvals (Ana Lima)": how far a parked call is toward the quorum
 * the workspace's approval policy asks for; null when one approval decides it
 * and none was given yet.
 */
export function approvalsView(decision: Approval): HTMLElement | null {
  const count = approvalsCount(decision);
  if (count === null) return null;
  const who = (decision.approvals?.received ?? []).map((entry) =>
    visibleText(entry.name ?? entry.principal, { oneLine: true }),
  );
  return h(
    'p',
    { class: 'approvals', 'aria-label': 'approvals' },
    count,
    who.length > 0 ? ` (${who.join(', ')})` : '',
  );
}
