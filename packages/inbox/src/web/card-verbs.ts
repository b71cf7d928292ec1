import { type Decision, isConflictError } from '@airlock/sdk';
import type { CardActions } from './render.js';

/** What happens once the kernel accepted a verb from a card. */
export interface VerbOutcome {
  /**
   * The decision ended: its row goes and `done` says what was done; null
   * `done` when it had been decided elsewhere first.
   */
  settled(decision: Decision, done: string | null): void;
}

/**
 * The card verbs of the inbox: approve (with a remember), deny with a
 * reason, answer. Each is bound to the row version the person read; a
 * decision made elsewhere first takes the row away without a line, and any
 * other failure is left to the card to show.
 */
export function inboxVerbs(outcome: VerbOutcome): CardActions {
  // Decided elsewhere first: the row goes without a line. Anything else is the card's to show.
  const failed = (decision: Decision, error: unknown): void => {
    if (isConflictError(error) && error.code !== 'version_mismatch') {
      outcome.settled(decision, null);
      return;
    }
    throw error;
  };
  const settle = (decision: Decision, work: Promise<unknown>, done: string): Promise<void> =>
    work.then(
      () => outcome.settled(decision, done),
      (error: unknown) => failed(decision, error),
    );
  return {
    approve: (decision, remember) =>
      settle(
        decision,
        // The SDK binds an approve to the row version this decision read.
        decision.approve(remember ? { remember } : {}),
        remember
          ? `Approved by you and remembered (${remember.scope}); running.`
          : 'Approved by you; running.',
      ),
    deny: (decision, reason) =>
      settle(
        decision,
        decision.deny({
          version: decision.task.version,
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        }),
        'Denied by you; the model reads why.',
      ),
    answer: (decision, content, outcomeWord) =>
      settle(
        decision,
        decision.answer({ content, ...(outcomeWord ? { outcome: outcomeWord } : {}) }),
        outcomeWord === 'failed' ? 'Declined by you.' : 'Answered by you.',
      ),
  };
}
