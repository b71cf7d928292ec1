import type { Decision, TaskView } from '@airlock/sdk';
import { approvedWords, decidedElsewhere, goesAhead, missedWords } from './card-verbs.js';
import { h, isolated } from './dom.js';
import { summaryOf } from './list-row.js';
import { refusalWords } from './refusal-words.js';
import { endSessionOnVerb } from './session-end.js';
import { type Words, wordsNodes } from './words.js';

/** What the bulk bar needs from the list. */
export interface BulkHost {
  /** The decisions of these keys still on the list (a row not read yet is read now). */
  decisions(keys: string[]): Promise<Decision[]>;
  /** One of them was decided here (`done` says how), or elsewhere first (null). */
  settled(decision: Decision, done: Words | null): void;
  /** An approval counted toward a quorum, and the call waits for more: its row stays. */
  progressed(decision: Decision, done: string): void;
  /** The decision's row as the kernel has it now (what became of it); null when unreadable. */
  read(decision: Decision): Promise<TaskView | null>;
}

/** What became of one selected call. */
type Result = 'approved' | 'recorded' | 'stopped' | 'denied' | 'elsewhere' | 'refused';

const keyOf = (decision: Decision) => `${decision.run_id}/${decision.task_key}`;

/** The summary line's words for each result, with the count in front. */
const SUMMARY: Record<Result, string> = {
  approved: 'approved and running',
  recorded: 'approval(s) recorded, waiting for more approvals',
  stopped: 'approved, but not running',
  denied: 'denied',
  elsewhere: 'decided elsewhere first',
  refused: 'refused',
};

/**
 * Approve or deny several selected calls at once, of the rows in view (the
 * list unticks a row the filter hides). Each is sent with the row
 * version the person saw, so a call that changed since is refused, not
 * decided. The bar then says, call by call, what the kernel did: ran it,
 * recorded the approval toward a quorum (the row stays), or refused it and
 * why. Bulk approve approves each call as it is: approve with changes is one
 * call at a time, from its card or its run story.
 */
export class BulkBar {
  private readonly ticked = new Set<string>();
  private readonly label = h('span', { class: 'bulk-count' }, '');
  private readonly reason = h('input', {
    type: 'text',
    name: 'bulk-reason',
    'aria-label': 'Reason for denying the selected calls',
    placeholder: 'Deny reason (optional)',
  });
  private readonly message = h('p', { class: 'bulk-message', role: 'status' });
  private readonly results = h('ul', {
    class: 'bulk-results',
    'aria-label': 'what became of each selected call',
  });
  private readonly buttons = [
    h(
      'button',
      { type: 'button', class: 'approve', onclick: () => void this.run('approve') },
      'Approve selected',
    ),
    h(
      'button',
      { type: 'button', class: 'deny', onclick: () => void this.run('deny') },
      'Deny selected',
    ),
    h('button', { type: 'button', onclick: () => this.clear() }, 'Clear selection'),
  ];
  /** The bar's element: hidden while nothing is selected and nothing was reported. */
  readonly element = h(
    'div',
    { class: 'bulk', role: 'group', 'aria-label': 'selected decisions', hidden: true },
    this.label,
    ...this.buttons.slice(0, 1),
    this.reason,
    ...this.buttons.slice(1),
    h(
      'p',
      { class: 'bulk-note' },
      'Approve selected approves each call as it is. To change a call before approving it, open it and use Edit input (e).',
    ),
    this.message,
    this.results,
  );

  constructor(private readonly host: BulkHost) {}

  /** True when this key is selected. */
  has(key: string): boolean {
    return this.ticked.has(key);
  }

  /** Selects or unselects one key. */
  set(key: string, on: boolean): void {
    if (on) this.ticked.add(key);
    else this.ticked.delete(key);
    this.show();
  }

  /** Flips one key and its row's tick box. */
  toggle(key: string, row: HTMLElement | null): void {
    const tick = row?.querySelector('.tick') as HTMLInputElement | null;
    const on = !this.ticked.has(key);
    if (tick) tick.checked = on;
    this.set(key, on);
  }

  /**
   * Unticks every selected row `shown` says the person cannot see (the
   * filter hides it, or it is off the loaded list): a bulk verb decides only
   * rows in view.
   */
  keepShown(shown: (key: string) => boolean): void {
    for (const key of [...this.ticked]) if (!shown(key)) this.untick(key);
  }

  private untick(key: string): void {
    const tick = document.querySelector<HTMLInputElement>(
      `.row[data-decision="${CSS.escape(key)}"] .tick`,
    );
    if (tick) tick.checked = false;
    this.set(key, false);
  }

  private clear(): void {
    for (const tick of document.querySelectorAll<HTMLInputElement>('.row .tick:checked')) {
      tick.checked = false;
    }
    this.ticked.clear();
    this.message.textContent = '';
    this.results.replaceChildren();
    this.show();
  }

  private show(): void {
    this.element.hidden = this.ticked.size === 0 && !this.message.textContent;
    this.label.textContent = `${this.ticked.size} selected`;
  }

  /** Sends one verb for one call and says what became of it. */
  private async decide(
    decision: Decision,
    verb: 'approve' | 'deny',
    reason: string,
  ): Promise<[Result, Words]> {
    if (decision.isAsk()) return ['refused', 'a question takes an answer, not an approval'];
    try {
      if (verb === 'deny') {
        await decision.deny({ version: decision.task.version, ...(reason ? { reason } : {}) });
        const done = 'Denied by you; the model reads why.';
        this.host.settled(decision, done);
        return ['denied', done];
      }
      // An approve is bound by the SDK to the version this decision read.
      const answer = await decision.approve();
      const done = approvedWords(answer, { edited: false });
      if (answer.state === 'needs_approval') {
        this.untick(keyOf(decision));
        this.host.progressed(decision, done);
        return ['recorded', done];
      }
      this.host.settled(decision, done);
      return [goesAhead(answer.state) ? 'approved' : 'stopped', done];
    } catch (error) {
      if (decidedElsewhere(error)) {
        this.host.settled(decision, null);
        // Which decision came first: a deny of a call someone approved must not read as done.
        return ['elsewhere', missedWords(verb, false, await this.host.read(decision))];
      }
      // A token refused mid-bulk ends the session: the list goes with it.
      endSessionOnVerb(error);
      return ['refused', refusalWords(error)];
    }
  }

  private async run(verb: 'approve' | 'deny'): Promise<void> {
    for (const button of this.buttons) button.disabled = true;
    const decisions = await this.host.decisions([...this.ticked]);
    const reason = this.reason.value.trim();
    const outcomes = await Promise.all(
      decisions.map(async (decision) => ({
        decision,
        said: await this.decide(decision, verb, reason),
      })),
    );
    for (const button of this.buttons) button.disabled = false;
    const counts = new Map<Result, number>();
    for (const { said } of outcomes) counts.set(said[0], (counts.get(said[0]) ?? 0) + 1);
    this.message.textContent = (Object.keys(SUMMARY) as Result[])
      .filter((result) => counts.has(result))
      .map((result) => `${counts.get(result)} ${SUMMARY[result]}`)
      .join(', ');
    this.results.replaceChildren(
      ...outcomes.map(({ decision, said: [result, words] }) =>
        h(
          'li',
          { 'data-decision': keyOf(decision), 'data-result': result },
          h('strong', {}, isolated(summaryOf(decision))),
          ` (run ${decision.run_id}, task ${decision.task_key}): `,
          ...wordsNodes(words),
        ),
      ),
    );
    this.show();
  }
}
