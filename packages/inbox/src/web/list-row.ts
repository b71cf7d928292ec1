import type { Decision } from '@airlock/sdk';
import { h } from './dom.js';
import { ago } from './format.js';
import { callLine } from './run-view.js';

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
 * summary, and a line with its run, task and age.
 */
export function listRow(decision: Decision, key: string, events: RowEvents): HTMLLIElement {
  const summary = summaryOf(decision);
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
        `${decision.run_id} · ${decision.task_key} · ${ago(decision.task.created_at)}`,
      ),
    ),
  );
}
