import { type TaskView, visibleText } from '@airlock/sdk';
import { act } from './acting.js';
import { h, onEnter } from './dom.js';
import { callLine, inputFields } from './format.js';
import { inputEditor } from './input-editor.js';
import { tallTextNote, textBoxProps } from './tall-text.js';

/** What approve and deny do from a run's story; each resolves when the kernel answered. */
export interface RowDecide {
  /** Denies with a reason, or approves (with an edited input: approve with changes). */
  decide(verb: 'approve' | 'deny', options: { reason: string; toolInput?: unknown }): Promise<void>;
}

/**
 * Approve, deny (with a reason) and, for a tool call, approve with changes
 * (the inbox's input editor) for a parked row of a run's story, bound to the
 * row version the story shows, under the call's whole input (the story's
 * line of it is cut short). A refusal is said in words on the row.
 */
export function rowActions(task: TaskView, actions: RowDecide): HTMLElement {
  const what = `${visibleText(task.tool_name, { oneLine: true })} (task ${task.key})`;
  const reason = h('input', {
    type: 'text',
    name: 'reason',
    placeholder: 'Reason the model reads (optional)',
    'aria-label': `deny reason for ${what}`,
  });
  const run = (verb: 'approve' | 'deny', toolInput?: unknown) =>
    act(element, () =>
      actions.decide(verb, {
        reason: reason.value.trim(),
        ...(toolInput === undefined ? {} : { toolInput }),
      }),
    );
  // Only a tool call's input can be edited (a hook row's cannot).
  const editor =
    task.kind === 'tool'
      ? inputEditor({
          original: task.tool_input,
          call: `${callLine(task.tool_name, task.tool_input, 80)} (task ${task.key})`,
          id: `story-${task.key}`,
          approve: (toolInput) => run('approve', toolInput),
        })
      : null;
  onEnter(reason, () => run('deny'));
  // The story's line of a call is cut short: what a person approves is shown whole here.
  const fields = inputFields(task.tool_input);
  const long = tallTextNote(fields);
  const element: HTMLElement = h(
    'div',
    { class: 'row-actions' },
    long ? h('p', { class: 'warning', role: 'note' }, long) : null,
    h(
      'dl',
      { class: 'story-input', 'aria-label': `the whole input of ${what}` },
      ...fields.flatMap(([key, text]) => [
        h('dt', {}, key),
        h('dd', {}, h('pre', textBoxProps(key, text), text)),
      ]),
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'approve',
        'data-action': 'approve',
        'aria-label': `Approve ${what}`,
        onclick: () => run('approve'),
      },
      'Approve',
    ),
    reason,
    h(
      'button',
      {
        type: 'button',
        class: 'deny',
        'data-action': 'deny',
        'aria-label': `Deny ${what}`,
        onclick: () => run('deny'),
      },
      'Deny',
    ),
    editor?.button,
    editor?.element,
    h('p', { class: 'message', role: 'status' }),
  );
  return element;
}
