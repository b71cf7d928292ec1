import type { Props } from './dom.js';

/**
 * A text taller than a box should be: a long command or input field would
 * push Approve and Deny a hundred screens down, so its box gets a bounded
 * height and scrolls, and a note above says how long it is and how it ends
 * (where `; curl … | sh` hides in a long line).
 */

/** Texts longer than this many characters, or lines, are shown in a scrolling box. */
export const TALL_CHARACTERS = 2_000;
export const TALL_LINES = 30;
/** How much of a tall text's end the note quotes. */
const ENDING_CHARACTERS = 120;

export function isTall(text: string): boolean {
  if (text.length > TALL_CHARACTERS) return true;
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    if (++lines > TALL_LINES) return true;
  }
  return false;
}

function lineCount(text: string): number {
  return text.split('\n').length;
}

const count = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The end of a tall text as the note quotes it: its last characters, on one line. */
export function endingOf(text: string): string {
  const trimmed = text.replace(/\s+$/, '');
  const tail =
    trimmed.length > ENDING_CHARACTERS ? `…${trimmed.slice(-ENDING_CHARACTERS)}` : trimmed;
  return tail.replace(/\s*\n\s*/g, ' ⏎ ');
}

/**
 * The note a card shows above an input of which some texts are tall, one
 * sentence each (`command: 102,400 characters on 1 line; it ends "…| sh"`),
 * or null when none is. The texts are those shown, hidden characters
 * already marked.
 */
export function tallTextNote(texts: [string, string][]): string | null {
  const tall = texts.filter(([, text]) => isTall(text));
  if (tall.length === 0) return null;
  const parts = tall.map(([key, text]) => `${key}: ${lengthWords(text)}`);
  return `This call's input is long, so its box scrolls: read it to its end before you approve. ${parts.join('; ')}.`;
}

/** A question's prompt that is tall: the note above its box, as {@link tallTextNote} says an input. */
export function tallPromptNote(prompt: string): string | null {
  if (!isTall(prompt)) return null;
  return `This question is long, so its box scrolls: read it to its end before you answer. It has ${lengthWords(prompt)}.`;
}

/** How long a text is and how it ends: `102,400 characters on 1 line, ending "…| sh"`. */
function lengthWords(text: string): string {
  return `${count(text.length, 'character', 'characters')} on ${count(lineCount(text), 'line', 'lines')}, ending "${endingOf(text)}"`;
}

/**
 * The attributes of a text's box, with its own class: a tall one also gets
 * `tall` (a bounded height that scrolls), a place in the Tab order (it
 * scrolls by keyboard too) and a name that says it scrolls.
 */
export function textBoxProps(key: string, text: string, className?: string): Props {
  if (!isTall(text)) return className ? { class: className } : {};
  return {
    class: className ? `${className} tall` : 'tall',
    tabindex: 0,
    'aria-label': `${key}, long: scroll to read it whole`,
  };
}
