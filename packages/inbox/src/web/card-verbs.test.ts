import { describe, expect, it } from 'vitest';
import {
  approvedWords,
  leftAfterUnanswered,
  missedWords,
  unansweredWords as unansweredParts,
} from './card-verbs.js';
import { wordsText } from './words.js';

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

describe('missedWords', () => {
  // What each line reads as, the name as it is shown.
  const missed = (...args: Parameters<typeof missedWords>) => wordsText(missedWords(...args));
  const unansweredWords = (...args: Parameters<typeof unansweredParts>) =>
    wordsText(unansweredParts(...args));
  const left = (...args: Parameters<typeof leftAfterUnanswered>) =>
    wordsText(leftAfterUnanswered(...args));

  const row = (state: string, code?: string) => ({
    state: state as never,
    error: code ? { code, detail: '' } : null,
    decided_by: 'member:cred_a',
    decided_by_name: 'Ana Lima',
  });

  it('never lets a deny that came after an approval read as done', () => {
    expect(missed('deny', false, row('claimed'))).toBe(
      'Not denied by you: the call had stopped waiting: it was approved by Ana Lima first, and is running.',
    );
    expect(missed('deny', false, row('succeeded'))).toMatch(
      /approved by Ana Lima first, and ran\.$/,
    );
  });

  it('says who denied it first, or that it expired, or what it is now', () => {
    expect(missed('approve', false, row('failed', 'approval_denied'))).toBe(
      'Not approved by you: the call had stopped waiting: it was denied by Ana Lima first.',
    );
    expect(missed('approve', false, row('failed', 'approval_expired'))).toMatch(
      /: it expired first\.$/,
    );
    expect(missed('approve', false, row('canceled'))).toMatch(/: it is canceled\.$/);
    expect(missed('answer', true, row('succeeded'))).toBe(
      'Not answered by you: the question had stopped waiting: it was answered by Ana Lima first.',
    );
    expect(missed('approve', false, null)).toBe(
      'Not approved by you: the call had stopped waiting (decided elsewhere first, or it expired).',
    );
  });

  it("keeps another member's name a part of its own, its hidden characters shown as marks", () => {
    const words = missedWords('approve', false, {
      ...row('failed', 'approval_denied'),
      decided_by_name: 'Bo \u202eanA',
    });
    expect(words).toContainEqual({ name: 'Bo \u202eanA' });
    expect(wordsText(words)).toBe(
      'Not approved by you: the call had stopped waiting: it was denied by Bo ⟨U+202E⟩anA first.',
    );
  });

  it('says what became of a call whose verb got no answer', () => {
    expect(unansweredWords('deny', false, row('claimed'))).toBe(
      'No answer came from the kernel to your deny, and the call no longer waits: it was approved by Ana Lima, and is running.',
    );
    expect(unansweredWords('approve', false, row('failed', 'approval_denied'))).toBe(
      'No answer came from the kernel to your approval, and the call no longer waits: it was denied by Ana Lima.',
    );
  });

  it('says what became of an open call that left after a verb got no answer, never that nothing was sent', () => {
    expect(left('approve', false, row('succeeded'))).toBe(
      'No answer came from the kernel to your approval, and the call no longer waits: it was approved by Ana Lima, and ran.',
    );
    for (const unread of [null, row('needs_approval')]) {
      expect(left('deny', false, unread)).toBe(
        "No answer came from the kernel to your deny, and what became of the call could not be read: its run's story says.",
      );
    }
  });
});
