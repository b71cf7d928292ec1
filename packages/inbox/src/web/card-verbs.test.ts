import { describe, expect, it } from 'vitest';
import { approvedWords } from './card-verbs.js';

describe('approvedWords', () => {
  it('says an approval ran the call, with changes or remembered', () => {
    expect(approvedWords({ state: 'runnable' }, { edited: false })).toBe(
      'Approved by you; running.',
    );
    expect(approvedWords({ state: 'runnable' }, { edited: true })).toBe(
      'Approved by you with your changes; running.',
    );
    expect(
      approvedWords(
        { state: 'runnable' },
        { edited: false, remember: { scope: 'conversation' } as never },
      ),
    ).toBe('Approved by you and remembered (conversation); running.');
  });

  it('says how far a call is toward its quorum when it still waits', () => {
    expect(
      approvedWords(
        {
          state: 'needs_approval',
          approvals: {
            required: 2,
            received: [{ principal: 'member:cred_a', name: 'Ana Lima', at: 1 }],
          } as never,
        },
        { edited: true },
      ),
    ).toBe(
      'Your approval of the edited call is recorded (1 of 2 approvals); the call waits for more approvals.',
    );
  });

  it('says the approvals a call waits for cannot come when too few members can give them', () => {
    expect(
      approvedWords(
        {
          state: 'needs_approval',
          approvals: {
            required: 2,
            received: [{ principal: 'member:cred_a', name: 'Ana Lima', at: 1 }],
            reachable: false,
          } as never,
        },
        { edited: false },
      ),
    ).toBe(
      "Your approval is recorded (1 of 2 approvals), but too few members can approve this call to complete it: an admin can change the workspace's approval policy, or it waits until its deadline.",
    );
  });

  it('says an edit under no_self_approval is saved for another member, not approved', () => {
    expect(
      approvedWords(
        { state: 'needs_approval', approvals: { required: 1, received: [] } as never },
        { edited: true },
      ),
    ).toBe(
      'Your changes are saved; the edited call waits for another member to approve it (your own approval does not count for a call whose input you wrote).',
    );
  });

  it('never says running of a call that does not run', () => {
    expect(approvedWords({ state: 'canceled' }, { edited: false })).toBe(
      'Approved by you; the call is canceled.',
    );
    expect(approvedWords({ state: 'claimed' }, { edited: false })).toBe(
      'Approved by you; running.',
    );
  });
});
