import type { Decision } from '@airlock/sdk';
import { approvalsCount } from './approvals-view.js';
import { h } from './dom.js';
import { ago, callLine } from './format.js';

/** What a row of the list does when a person picks or ticks it. */
export interface RowEvents {
  open(key: string): void;
  tick(key: string, ticked: boolean): void;
}

/**
 * What a row of the list shows: from a decision read from the kernel, or
 * from the feed's own events (a first park, before anyone reads it).
 */
export interface RowFacts {
  run_id: string;
  task_key: string;
  round: number;
  created_at: number;
  kind: 'approval' | 'question';
  summary: string;
  /** "1 of 2 approvals", or null. */
  progress: string | null;
}

/** The one-line summary of a waiting decision: a question's prompt or the call. */
export function summaryOf(decision: Decision): string {
  return decision.isAsk()
    ? `ask: ${decision.prompt || 'a question'}`
    : callLine(decision.tool_name, decision.tool_input, 160);
}

/** What a row shows of a decision. */
export function factsOf(decision: Decision): RowFacts {
  return {
    run_id: decision.run_id,
    task_key: decision.task_key,
    round: decision.task.round,
    created_at: decision.task.created_at,
    kind: decision.kind,
    summary: summaryOf(decision),
    progress: decision.isApproval() ? approvalsCount(decision) : null,
  };
}

/**
 * One dense row of the waiting list (about 50 px): a tick box for bulk
 * actions, a button that opens the decision in the detail pane with its
 * summary, a line with its run, task and age, and how far it is toward
 * its quorum ("1 of 2 approvals") when the approval policy asks several.
 */
export function listRow(facts: RowFacts, key: string, events: RowEvents): HTMLLIElement {
  const tick = h('input', {
    type: 'checkbox',
    class: 'tick',
    'aria-label': `Select ${facts.summary} (run ${facts.run_id}, task ${facts.task_key})`,
  });
  tick.addEventListener('change', () => events.tick(key, tick.checked));
  const progress = facts.progress;
  return h(
    'li',
    {
      class: 'row',
      'data-decision': key,
      'data-kind': facts.kind,
    },
    tick,
    h(
      'button',
      { type: 'button', class: 'open', onclick: () => events.open(key) },
      h(
        'span',
        { class: `badge ${facts.kind}` },
        facts.kind === 'question' ? 'question' : 'approval',
      ),
      h('span', { class: 'summary' }, facts.summary),
      h(
        'span',
        { class: 'line-meta' },
        progress === null ? null : h('span', { class: 'row-approvals' }, progress),
        `${progress === null ? '' : ' · '}${facts.run_id} · ${facts.task_key} · ${ago(facts.created_at)}`,
      ),
    ),
  );
}
