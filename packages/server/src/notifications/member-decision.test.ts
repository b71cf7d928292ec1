import { describe, expect, it } from 'vitest';
import { describeOutcome } from './member-decision.js';

describe('what a person deciding from Slack or a link is told', () => {
  it('counts the approvals while more can come', () => {
    const outcome = {
      decided: false,
      by: 'member:cred_a',
      approvals: { received: 1, required: 2, reachable: true },
    };
    expect(describeOutcome('approve', outcome, 'Ana')).toBe(
      'Ana (member:cred_a) approved: 1 of 2 approvals, waiting for 1 more',
    );
  });

  it('says too few members can complete it when a revoke left the quorum out of reach', () => {
    const outcome = {
      decided: false,
      by: 'member:cred_a',
      approvals: { received: 1, required: 2, reachable: false },
    };
    const told = describeOutcome('approve', outcome, 'Ana');
    expect(told).toContain('Ana (member:cred_a) approved: 1 of 2 approvals, but too few members');
    expect(told).not.toContain('waiting for 1 more');
  });

  it('names who decided once the row left the wait', () => {
    const outcome = { decided: true, by: 'member:cred_a', approvals: null };
    expect(describeOutcome('deny', outcome, 'member:cred_a')).toBe('Denied by member:cred_a');
  });
});
