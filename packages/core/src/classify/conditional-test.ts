/**
 * Where the lexer is in bash's `[[ ... ]]`: inside it `&&`, `(` or `<` are
 * the test's operators, not separators or redirections, and the word after
 * `=~` is a regular expression whose `(`, `)` and `|` are part of it
 * (`[[ $x =~ ^(a|b)$ ]]`), as bash reads it.
 */
import type { ShellWord } from './lexed-line.js';

export class ConditionalTest {
  /** With `regexes` false, the word after `=~` is read as any other (a best-effort re-reading). */
  constructor(private readonly regexes = true) {}

  /** Inside `[[ ... ]]`. */
  active = false;
  /** Reading the regex after `=~`: how deep in its parentheses; null elsewhere. */
  private regex: number | null = null;
  /** Where the regex's outermost open parenthesis was, for a reading of what an unclosed one took. */
  private opened = -1;
  /** The regex's parentheses hold `;`, `&` or a newline: text bash would run were they not there. */
  private separated = false;

  /**
   * Whether `char` at `at` belongs to the regex word being read: a `|`, a
   * parenthesis, or anything inside its parentheses (blanks too).
   */
  regexTakes(char: string, at: number): boolean {
    const depth = this.regex;
    if (depth === null || (depth === 0 && char !== '(' && char !== '|')) return false;
    if (char === '(' && depth === 0 && this.opened < 0) this.opened = at;
    if (depth > 0 && (char === ';' || char === '&' || char === '\n')) this.separated = true;
    if (char === '(') this.regex = depth + 1;
    else if (char === ')') this.regex = depth - 1;
    return true;
  }

  /**
   * After a word of the test: `]]` ends it, `=~` makes the next word a
   * regex. When the word was a regex that took text bash would otherwise
   * run (a parenthesis left open took the rest of the line, or one holds
   * `;`, `&` or a newline): where that text starts, and why; else null.
   */
  afterWord(word: ShellWord): { from: number; problem: string } | null {
    const open = this.regex !== null && this.regex > 0;
    const took =
      open || (this.regex !== null && this.separated)
        ? {
            from: this.opened + 1,
            problem: open
              ? 'unclosed parenthesis in a [[ =~ regex'
              : 'a [[ =~ regex holding ; & or a newline',
          }
        : null;
    this.regex = null;
    this.opened = -1;
    this.separated = false;
    // Any `]]` ends the test (a quoted one too: ending early reads more, never less).
    if (this.active && word.text === ']]') this.active = false;
    if (this.regexes && this.active && word.text === '=~' && !word.dynamic) this.regex = 0;
    return took;
  }

  /** The command ended: no test is open any more. */
  end(): void {
    this.active = false;
    this.regex = null;
  }
}
