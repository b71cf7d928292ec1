import type { UnansweredCall } from './ai-messages.js';

/**
 * Thrown out of `generateText` / `streamText` by a wrapped tool when the messages answer some
 * approval requests of a step but leave others unanswered (a park still waiting for a person).
 * The AI SDK sends the model nothing until every call of the step has an answer, and would run
 * the approved calls first and then throw, their results lost: so nothing runs. Resume the same
 * saved messages again once `resume`'s `pending` is empty.
 */
export class PendingApprovalsError extends Error {
  /** The calls whose approval request is still unanswered. */
  readonly pending: readonly UnansweredCall[];
  constructor(pending: readonly UnansweredCall[]) {
    const calls = pending.map((call) => `${call.toolCallId} (${call.toolName})`).join(', ');
    super(
      `Airlock: the step's calls ${calls} still wait for an approval, and the AI SDK goes on only once every call of a step is answered, so nothing ran; call resume(messages) again on the saved messages once its pending list is empty`,
    );
    this.name = 'PendingApprovalsError';
    this.pending = pending;
  }
}

/** True for a {@link PendingApprovalsError} (by name too, across copies of the SDK). */
export function isPendingApprovalsError(value: unknown): value is PendingApprovalsError {
  return (
    value instanceof PendingApprovalsError ||
    (value instanceof Error && value.name === 'PendingApprovalsError' && 'pending' in value)
  );
}
