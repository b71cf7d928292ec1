import type { Decision } from '@airlock/sdk';
import { approvalsCount } from './approvals-view.js';
import { h } from './dom.js';
import { ago, callLine } from './format.js';

/** What a row of the list does when a person picks or ticks it. */
export interface RowEvents {
  open(key: string): void;
  tick(key: string, ticked: boolean): void;
}

/** The one-line summary of a waiting decision: a question's prompt or the call. */
export function summaryOf(decision: Decision): string {
  return decision.isAsk()
    ? `ask: ${decision.prompt || 'a question'}`
    : callLine(decision.tool_name, decision.tool_input, 160);
}

/**
 * One dense row of the waiting list (about 50 px): a tick box for bulk
 * actions, a button that opens the decision in the detail pane with its
 * summary, a line with its run, task and age, and how far it is toward
 * its quorum ("1 of 2 approvals") when the approval policy asks several.
 */
export function listRow(decision: Decision, key: string, events: RowEvents): HTMLLIElement {
  const summary = summaryOf(decision);
  const progress = decision.isApproval() ? approvalsCount(decision) : null;
  const tick = h('input', {
    type: 'checkbox',
    class: 'tick',
    'aria-label': `Select ${summary} (run ${decision.run_id}, task ${decision.task_key})`,
  });
  tick.addEventListener('change', () => events.tick(key, tick.checked));
  return h(
    'li',
    { class: 'row', 'data-decision': key, 'data-kind': decision.kind },
    tick,
    h(
      'button',
      { type: 'button', class: 'open', onclick: () => events.open(key) },
      h('span', { class: `badge ${decision.kind}` }, decision.isAsk() ? 'question' : 'approval'),
      h('span', { class: 'summary' }, summary),
      h(
        'span',
        { class: 'line-meta' },
        progress === null ? null : h('span', { class: 'row-approvals' }, progress),
        `${progress === null ? '' : ' · '}${decision.run_id} · ${decision.task_key} · ${ago(decision.task.created_at)}`,
      ),
    ),
  );
}
