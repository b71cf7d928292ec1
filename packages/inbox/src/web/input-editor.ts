import { visibleText } from '@airlock/sdk';
import { focusableWhileScrolling, h } from './dom.js';
import { editableText, inputDiffLines, readEditedInput } from './input-edit.js';

/** What the editor of a call's input needs from its card. */
export interface InputEditorOptions {
  /** The call's input as the model composed it. */
  original: unknown;
  /** The call in words, for the names assistive technology reads. */
  call: string;
  /** A stable id part for the editor's elements. */
  id: string;
  /** Approves the call with this edited input (the card shows the kernel's answer). */
  approve(toolInput: unknown): void;
}

/** The editor and the button that opens it. */
export interface InputEditor {
  /** The "Edit input" button, for the card's actions. */
  button: HTMLButtonElement;
  /** The editor itself, hidden until the button opens it. */
  element: HTMLElement;
  /** Opens the editor and puts the cursor in it. */
  open(): void;
}

const MARK = { added: '+', removed: '-', kept: ' ' } as const;
const WORDS = { added: 'added', removed: 'removed', kept: 'kept' } as const;

/**
 * Approve with changes: a JSON editor of a parked call's input, checked as
 * the person types (invalid JSON is named with its line and column, and
 * nothing is sent), the line diff against the original, and "Approve with
 * changes". Escape closes it, Ctrl+Enter approves.
 */
export function inputEditor(options: InputEditorOptions): InputEditor {
  const id = `edit-${options.id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const text = h('textarea', {
    id: `${id}-text`,
    name: 'tool-input',
    class: 'edit-text',
    rows: 8,
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-describedby': `${id}-error`,
  });
  // Shown as the person types and read with the field, not spoken: a text being typed is
  // invalid at nearly every keystroke, and a screen reader would say each new column.
  const error = h('p', { id: `${id}-error`, class: 'edit-error' });
  // What a send attempt found, said once per attempt.
  const said = h('span', { class: 'announce', role: 'status' });
  const diff = h('pre', {
    class: 'diff-lines edit-diff',
    'aria-label': 'the edited input against the original',
  });
  const approve = h(
    'button',
    {
      type: 'button',
      class: 'approve',
      'data-action': 'approve-edited',
      'aria-label': `Approve with changes: ${options.call}`,
    },
    'Approve with changes',
  );
  const cancel = h(
    'button',
    {
      type: 'button',
      'data-action': 'cancel-edit',
      'aria-label': `Cancel editing ${options.call}`,
    },
    'Cancel',
  );
  const element = h(
    'section',
    { id, class: 'edit', hidden: true, 'aria-label': `edit the input of ${options.call}` },
    h('label', { for: text.id, class: 'edit-label' }, 'The input the call runs with, as JSON'),
    text,
    error,
    said,
    h('p', { class: 'edit-diff-title' }, 'Against the original:'),
    diff,
    h('div', { class: 'actions' }, approve, cancel),
  );
  const button = h(
    'button',
    {
      type: 'button',
      class: 'edit-open',
      'data-action': 'edit',
      'aria-expanded': 'false',
      'aria-controls': id,
      'aria-label': `Edit input of ${options.call}`,
    },
    'Edit input',
  );

  /** Shows what the text says: its diff, or why it is not JSON. Returns the reading. */
  const check = () => {
    const read = readEditedInput(text.value, options.original);
    text.setAttribute('aria-invalid', String(!read.ok));
    const words = read.ok ? '' : `${read.message.replace(/\.$/, '')}. Nothing was sent.`;
    // Rewritten only when it changes: the line is not remade at every keystroke.
    if (error.textContent !== words) error.textContent = words;
    if (read.ok) {
      diff.replaceChildren(
        ...(read.changed
          ? inputDiffLines(options.original, read.value).map((line) =>
              h(
                'span',
                { class: `diff-${line.kind}`, title: WORDS[line.kind] },
                `${MARK[line.kind]} ${visibleText(line.text)}\n`,
              ),
            )
          : [h('span', { class: 'diff-kept' }, 'No change yet.\n')]),
      );
      focusableWhileScrolling(diff);
    }
    return read;
  };
  /** Says what a send attempt found; the same words again are said again (a new attempt). */
  const say = (words: string) => {
    said.textContent = '';
    said.append(words);
  };
  const send = () => {
    const read = check();
    if (!read.ok) {
      say(error.textContent ?? '');
      text.focus();
      return;
    }
    if (!read.changed) {
      error.textContent = 'Nothing changed: use Approve to approve the call as it is.';
      say(error.textContent);
      return;
    }
    said.textContent = '';
    options.approve(read.value);
  };
  const close = () => {
    element.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    button.focus();
  };
  const open = () => {
    if (element.hidden) {
      text.value = editableText(options.original);
      element.hidden = false;
      button.setAttribute('aria-expanded', 'true');
      check();
    }
    text.focus();
  };
  button.addEventListener('click', () => (element.hidden ? open() : close()));
  text.addEventListener('input', () => void check());
  text.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      close();
    } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
    }
  });
  approve.addEventListener('click', send);
  cancel.addEventListener('click', close);
  return { button, element, open };
}
