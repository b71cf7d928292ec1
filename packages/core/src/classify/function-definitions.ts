/** bash's `NAME ( )` function definition header, which defines NAME and runs nothing. */
import type { ShellWord } from './lexed-line.js';

/** A function name the classifier accepts as written: no quotes, escapes or expansions. */
const FUNCTION_NAME = /^[A-Za-z_][\w.:@+-]*$/;
/** What may stand right before a command's first word. */
const COMMAND_BOUNDARY = /[\s;&|(){}]/;

/**
 * Where the `()` of a function definition opened at `open` ends (the index
 * after its `)`), or -1 when the `(` opens a subshell. A definition is
 * `NAME ( )` or `function NAME ( )` with only blanks inside the parentheses,
 * NAME being the segment's only other word and written plainly in the
 * source: bash refuses a quoted or expanded name (`"f"() {...}`) and goes
 * on, so such a line keeps being read as a call of NAME.
 */
export function functionHeaderEnd(
  source: string,
  open: number,
  words: readonly ShellWord[],
): number {
  const keyword = words.length === 2 && !words[0]!.dynamic && words[0]!.text === 'function';
  const name = words.at(-1);
  if (name === undefined || name.dynamic || (words.length !== 1 && !keyword)) return -1;
  if (!FUNCTION_NAME.test(name.text)) return -1;
  let close = open + 1;
  while (source[close] === ' ' || source[close] === '\t') close++;
  if (source[close] !== ')') return -1;
  let end = open;
  while (end > 0 && (source[end - 1] === ' ' || source[end - 1] === '\t')) end--;
  const start = end - name.text.length;
  if (start < 0 || source.slice(start, end) !== name.text) return -1;
  if (start > 0 && !COMMAND_BOUNDARY.test(source[start - 1]!)) return -1;
  return close + 1;
}
