import type { Approval } from '@airlock/sdk';
import { h } from './dom.js';

/**
 * "1 of 2 approvals (Ana Lima)": how far a parked call is toward the quorum
 * the workspace's approval policy asks for; null when one approval decides it
 * and none was given yet.
 */
export function approvalsView(decision: Approval): HTMLElement | null {
  const progress = decision.approvals;
  if (!progress || (progress.required <= 1 && progress.received.length === 0)) return null;
  const who = progress.received.map((entry) => entry.name ?? entry.principal);
  return h(
    'p',
    { class: 'approvals', 'aria-label': 'approvals' },
    `${progress.received.length} of ${progress.required} approvals`,
    who.length > 0 ? ` (${who.join(', ')})` : '',
  );
}
