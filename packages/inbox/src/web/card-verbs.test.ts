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
    ).toBe('Approved by you with your changes (1 of 2 approvals); it waits for more approvals.');
  });
});
