import { describe, expect, it } from 'vitest';
import { refusalWords } from './refusal-words.js';

describe('refusalWords', () => {
  it("puts a known code in words before the kernel's detail", () => {
    expect(
      refusalWords({
        code: 'edit_refused',
        detail: 'the edited call is refused: denied by approval rule 0',
      }),
    ).toBe(
      'Your edit was refused and nothing changed: the call still waits as it was (edit_refused). the edited call is refused: denied by approval rule 0',
    );
    // A plain approve a guardrail added since refuses is not told it was an edit.
    expect(refusalWords({ code: 'approval_refused', detail: 'deploys are frozen' })).toMatch(
      /^The workspace's policy now refuses this call, so it cannot be approved; .*\(approval_refused\)\. deploys are frozen$/,
    );
    expect(refusalWords({ code: 'approver_not_allowed', detail: 'x' })).toMatch(
      /^The workspace's approval policy does not let you decide this call/,
    );
  });

  it('shows an unknown code by its detail, and any other failure by its message', () => {
    expect(refusalWords({ code: 'something_new', detail: 'what happened' })).toBe('what happened');
    expect(refusalWords(new Error('network down'))).toBe('network down');
    expect(refusalWords('odd')).toBe('odd');
  });
});
