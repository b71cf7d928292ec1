import {
  type Decision,
  isConflictError,
  isConnectionError,
  type Remember,
  type TaskView,
} from '@airlock/sdk';
import type { CardActions } from './render.js';
import { stateWords } from './story.js';
import type { Words } from './words.js';

/** A card's verb. */
export type CardVerb = 'approve' | 'deny' | 'answer';

/** What happens once the kernel accepted a verb from a card. */
export interface VerbOutcome {
  /**
   * The decision ended: its row goes and `done` says what was done; null
   * `done` when it had been decided elsewhere first.
   */
  settled(decision: Decision, done: Words | null): void;
  /** An approval counted, but the call waits for more: its row stays, `done` says so. */
  progressed(decision: Decision, done: string): void;
  /** The decision's row as the kernel has it now; null when it cannot be read. */
  read(decision: Decision): Promise<TaskView | null>;
  /** Says a line of a decision whose row already went (a verb that came too late). */
  said(decision: Decision, words: Words): void;
  /**
   * A verb whose answer never came, and whose row could not be read after it either: the
   * kernel may have applied it, so once the call stops waiting the page says what became of
   * it, never that nothing was sent.
   */
  unanswered(decision: Decision, verb: CardVerb): void;
  /** The verb sent earlier on this decision whose answer never came, if any. */
  unansweredBefore(decision: Decision): CardVerb | null;
}

/**
 * True when a verb was refused because its call no longer waits (decided
 * elsewhere first, expired, canceled). Any other refusal (a version
 * read before a change, a guardrail's `approval_refused`) leaves the call
 * waiting, and is said in words instead.
 */
export function decidedElsewhere(error: unknown): boolean {
  return isConflictError(error) && error.code === 'task_not_waiting';
}

/** True when an approved call goes ahead in this state: an executor takes it, or already has. */
export function goesAhead(state: string): boolean {
  return state === 'runnable' || state === 'claimed' || state === 'succeeded';
}

/**
 * What an approval did, in words, from the kernel's answer: ran (with
 * changes, or remembered), recorded toward a quorum, or what became of the
 * call otherwise. It never says "running" of a call that does not run.
 */
export function approvedWords(
  answer: Pick<TaskView, 'state' | 'approvals'>,
  options: { remember?: Remember | undefined; edited: boolean },
): string {
  const how = options.edited ? ' with your changes' : '';
  if (answer.state === 'needs_approval') {
    const progress = answer.approvals;
    const count = progress ? `${progress.received.length} of ${progress.required} approvals` : '';
    // Under no_self_approval an edited call is the editor's own: kept, but not approved by them.
    if (options.edited && progress?.received.length === 0) {
      return 'Your changes are saved; the edited call waits for another member to approve it (your own approval does not count for a call whose input you wrote).';
    }
    const which = options.edited ? ' of the edited call' : '';
    const recorded = `Your approval${which} is recorded${count ? ` (${count})` : ''}`;
    // The approvals it waits for cannot come: say so, not that more are on the way.
    if (progress?.reachable === false) {
      return `${recorded}, but too few members can approve this call to complete it: an admin can change the workspace's approval policy, or it waits until its deadline.`;
    }
    return `${recorded}; the call waits for more approvals.`;
  }
  if (!goesAhead(answer.state))
    return `Approved by you${how}; the call is ${stateWords(answer.state)}.`;
  return options.remember
    ? `Approved by you${how} and remembered (${options.remember.scope}); running.`
    : `Approved by you${how}; running.`;
}

/** What an approved call does next, by its state. */
const AHEAD_WORDS: Record<string, string> = {
  runnable: 'waits for an executor',
  claimed: 'is running',
  succeeded: 'ran',
};

const NOT_DONE: Record<CardVerb, string> = {
  approve: 'Not approved by you',
  deny: 'Not denied by you',
  answer: 'Not answered by you',
};

const VERB_NOUN: Record<CardVerb, string> = { approve: 'approval', deny: 'deny', answer: 'answer' };

/** A row as what became of its call: who decided it and what it does now. */
type EndedRow = Pick<TaskView, 'state' | 'error' | 'decided_by' | 'decided_by_name'>;

/**
 * What became of a call that no longer waits ("it was denied by Ana Lima"), `first` after the
 * deed; the member's name is a part of its own (see {@link Words}).
 */
function becameWords(question: boolean, task: EndedRow, first: string): Words {
  const by = task.decided_by_name ?? task.decided_by;
  const who = (deed: string) => (by ? [`${deed} by `, { name: by }, first] : [`${deed}${first}`]);
  const code = task.error?.code;
  if (code === 'approval_denied') return who('it was denied');
  if (code === 'approval_expired' || code === 'question_expired') return `it expired${first}`;
  if (question && task.state === 'succeeded') return who('it was answered');
  const ran = AHEAD_WORDS[task.state];
  if (!question && ran) return [...who('it was approved'), `, and ${ran}`];
  return `it is ${stateWords(task.state)}${code ? ` (${code})` : ''}`;
}

/** `before`, the words, then `after`, as one line. */
function around(before: string, words: Words, after: string): Words {
  return typeof words === 'string' ? `${before}${words}${after}` : [before, ...words, after];
}

/**
 * What a person's verb that came too late says: that it was not done, and
 * what became of the call first, from its row read now (null when it could
 * not be read). A deny that came after someone else's approval must never
 * read as done: the call runs.
 */
export function missedWords(verb: CardVerb, question: boolean, task: EndedRow | null): Words {
  const head = `${NOT_DONE[verb]}: the ${question ? 'question' : 'call'} had stopped waiting`;
  if (task === null) return `${head} (decided elsewhere first, or it expired).`;
  return around(`${head}: `, becameWords(question, task, ' first'), '.');
}

/**
 * What a verb whose answer never came (the connection dropped: a kernel
 * restarting under the page) says once the row read after it no longer
 * waits: it may have been this verb or another's, and the row says which.
 */
export function unansweredWords(verb: CardVerb, question: boolean, task: EndedRow): Words {
  const what = question ? 'question' : 'call';
  return around(
    `No answer came from the kernel to your ${VERB_NOUN[verb]}, and the ${what} no longer waits: `,
    becameWords(question, task, ''),
    '.',
  );
}

/** The states a row waits for a person in. */
const WAITING = new Set(['needs_approval', 'awaiting_input']);

/**
 * What an open call that stopped waiting says when a verb sent from its card
 * earlier never got an answer: what became of it, from its row read now (null
 * when it could not be read, or waits again).
 */
export function leftAfterUnanswered(
  verb: CardVerb,
  question: boolean,
  task: EndedRow | null,
): Words {
  if (task && !WAITING.has(task.state)) return unansweredWords(verb, question, task);
  return `No answer came from the kernel to your ${VERB_NOUN[verb]}, and what became of the ${question ? 'question' : 'call'} could not be read: its run's story says.`;
}

/**
 * The card verbs of the inbox: approve (with a remember, or an edited
 * input), deny with a reason, answer. Each is bound to the row version the
 * person read; a decision made elsewhere first takes the row away and is
 * said as missed, as is a verb whose answer was lost once its row no longer
 * waits; any other failure is left to the card to show.
 */
export function inboxVerbs(outcome: VerbOutcome): CardActions {
  // Decided elsewhere first, or sent without an answer and decided since: the row goes, and a
  // line says what became of it. Anything else is the card's to show.
  const failed = async (decision: Decision, verb: CardVerb, error: unknown): Promise<void> => {
    if (decidedElsewhere(error)) {
      // An earlier verb of this card whose answer was lost may be what decided it.
      const earlier = outcome.unansweredBefore(decision);
      outcome.settled(decision, null);
      const row = await outcome.read(decision);
      outcome.said(
        decision,
        earlier && row
          ? unansweredWords(earlier, decision.isAsk(), row)
          : missedWords(verb, decision.isAsk(), row),
      );
      return;
    }
    if (isConnectionError(error)) {
      // The verb may have been applied before its answer was lost: the row says whether it waits.
      const row = await outcome.read(decision);
      if (row && !WAITING.has(row.state)) {
        outcome.settled(decision, unansweredWords(verb, decision.isAsk(), row));
        return;
      }
      if (row === null) outcome.unanswered(decision, verb);
    }
    throw error;
  };
  const settle = (
    decision: Decision,
    verb: CardVerb,
    work: Promise<unknown>,
    done: string,
  ): Promise<void> =>
    work.then(
      () => outcome.settled(decision, done),
      (error: unknown) => failed(decision, verb, error),
    );
  return {
    approve: async (decision, options = {}) => {
      const { remember, toolInput } = options;
      const edited = toolInput !== undefined;
      let answer: TaskView;
      try {
        // The SDK binds an approve to the row version this decision read.
        answer = await decision.approve({
          ...(remember ? { remember } : {}),
          ...(edited ? { tool_input: toolInput } : {}),
        });
      } catch (error) {
        await failed(decision, 'approve', error);
        return;
      }
      const done = approvedWords(answer, { remember, edited });
      if (answer.state === 'needs_approval') outcome.progressed(decision, done);
      else outcome.settled(decision, done);
    },
    deny: (decision, reason) =>
      settle(
        decision,
        'deny',
        decision.deny({
          version: decision.task.version,
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        }),
        'Denied by you; the model reads why.',
      ),
    answer: (decision, content, outcomeWord) =>
      settle(
        decision,
        'answer',
        decision.answer({ content, ...(outcomeWord ? { outcome: outcomeWord } : {}) }),
        outcomeWord === 'failed' ? 'Declined by you.' : 'Answered by you.',
      ),
  };
}
