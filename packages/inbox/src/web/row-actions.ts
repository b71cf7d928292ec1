import type { TaskView } from '@airlock/sdk';
import { h } from './dom.js';
import { refusalWords } from './refusal-words.js';

/** What approve and deny do from a run's story; each resolves when the kernel answered. */
export interface RowDecide {
  decide(verb: 'approve' | 'deny', reason: string): Promise<void>;
}

/**
 * Approve and deny (with a reason) for a parked row of a run's story, bound
 * to the row version the story shows.
 */
export function rowActions(task: TaskView, actions: RowDecide): HTMLElement {
  const what = `${task.tool_name} (task ${task.key})`;
  const reason = h('input', {
    type: 'text',
    name: 'reason',
    placeholder: 'Reason the model reads (optional)',
    'aria-label': `deny reason for ${what}`,
  });
  const message = h('p', { class: 'message', role: 'status' });
  const buttons: HTMLButtonElement[] = [];
  const run = (verb: 'approve' | 'deny') => {
    for (const button of buttons) button.disabled = true;
    message.textContent = '';
    actions.decide(verb, reason.value.trim()).catch((error: unknown) => {
      for (const button of buttons) button.disabled = false;
      message.textContent = refusalWords(error);
    });
  };
  buttons.push(
    h(
      'button',
      {
        type: 'button',
        class: 'approve',
        'aria-label': `Approve ${what}`,
        onclick: () => run('approve'),
      },
      'Approve',
    ),
    h(
      'button',
      { type: 'button', class: 'deny', 'aria-label': `Deny ${what}`, onclick: () => run('deny') },
      'Deny',
    ),
  );
  reason.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      run('deny');
    }
  });
  return h(
    'div',
    { class: 'row-actions' },
    buttons[0] ?? null,
    reason,
    buttons[1] ?? null,
    message,
  );
}
