import { h } from './dom.js';

/** What each key of the inbox does. */
export interface KeyHandlers {
  next(): void;
  previous(): void;
  approve(): void;
  deny(): void;
  edit(): void;
  tick(): void;
  filter(): void;
  help(): void;
}

/** The keys, as the help lists them. */
export const KEYS: [string, string][] = [
  ['j', 'next decision'],
  ['k', 'previous decision'],
  ['a', 'approve the open call'],
  ['d', 'deny the open call: type the reason, Enter sends it'],
  ['e', "edit the open call's input, then approve it with changes (Ctrl+Enter; Escape closes)"],
  ['x', 'select or unselect the open decision for a bulk action'],
  ['/', 'filter the list'],
  ['?', 'show or hide this help'],
];

/** Inputs that take no typed text: the keys work while one has the focus (a tick box just clicked). */
const UNTYPED_INPUTS = new Set([
  'checkbox',
  'radio',
  'button',
  'submit',
  'reset',
  'range',
  'color',
  'file',
]);

/** Whether a key pressed here is text being typed (a text field, a select), not one of the inbox's keys. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !UNTYPED_INPUTS.has(target.type);
  return target.isContentEditable || ['TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * The keys that act again while held down (the browser's auto-repeat): moving only. A held
 * `a` would approve each call the pane moves on to, cards the person never read.
 */
const REPEATING = new Set(['j', 'k']);

/**
 * Listens for the inbox's keys on the document (not while typing); returns the unbinding.
 * Held down, only `j` and `k` repeat: every other key acts once per press.
 */
export function bindKeys(handlers: KeyHandlers): () => void {
  const listener = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const action: Record<string, (() => void) | undefined> = {
      j: handlers.next,
      k: handlers.previous,
      a: handlers.approve,
      d: handlers.deny,
      e: handlers.edit,
      x: handlers.tick,
      '/': handlers.filter,
      '?': handlers.help,
    };
    const run = action[event.key];
    if (!run) return;
    event.preventDefault();
    if (event.repeat && !REPEATING.has(event.key)) return;
    run();
  };
  document.addEventListener('keydown', listener);
  return () => document.removeEventListener('keydown', listener);
}

/** The keyboard help, hidden until `?`. */
export function keyHelp(): HTMLElement {
  return h(
    'section',
    { class: 'key-help', 'aria-label': 'keyboard shortcuts', hidden: true },
    h('h2', {}, 'Keyboard'),
    h(
      'dl',
      {},
      ...KEYS.flatMap(([key, words]) => [h('dt', {}, h('kbd', {}, key)), h('dd', {}, words)]),
    ),
  );
}
