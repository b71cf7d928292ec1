import { visibleText } from '@airlock/sdk';
import { isolated } from './dom.js';

/** A member's name inside a line the page says, as the kernel sent it. */
export interface Named {
  readonly name: string;
}

/**
 * A line the page says ("it was denied by NAME first"): plain text, or parts with the names
 * of other members apart, so that a name's hidden characters show as marks and its
 * right-to-left letters cannot reorder the words around it.
 */
export type Words = string | readonly (string | Named)[];

/** A name as a line shows it: one line, its hidden characters as marks (`⟨U+202E⟩`). */
function shownName(part: Named): string {
  return visibleText(part.name, { oneLine: true });
}

/** A line as text (a screen reader's status, a test), each name as it is shown. */
export function wordsText(words: Words): string {
  if (typeof words === 'string') return words;
  return words.map((part) => (typeof part === 'string' ? part : shownName(part))).join('');
}

/** A line as nodes to draw: each name in its own `<bdi>`, its hidden characters as marks. */
export function wordsNodes(words: Words): (string | HTMLElement)[] {
  if (typeof words === 'string') return [words];
  return words.map((part) => (typeof part === 'string' ? part : isolated(shownName(part))));
}

/** A line with `more` text after it. */
export function wordsThen(words: Words, more: string): Words {
  return typeof words === 'string' ? `${words}${more}` : [...words, more];
}
