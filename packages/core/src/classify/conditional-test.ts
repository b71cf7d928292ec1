/**
 * Where the lexer is in bash's `[[ ... ]]`: inside it `&&`, `(` or `<` are
 * the test's operators, not separators or redirections, and the word after
 * `=~` is a regular expression whose `(`, `)` and `|` are part of it
 * (`[[ $x =~ ^(a|b)$ ]]`), as bash reads it.
 */
import type { ShellWord } from './lexed-line.js';

export class ConditionalTest {
  /** Inside `[[ ... ]]`. */
  active = false;
  /** Reading the regex after `=~`: how deep in its parentheses; null elsewhere. */
  private regex: number | null = null;

  /**
   * Whether `char` belongs to the regex word being read: a `|`, a
   * parenthesis, or anything inside its parentheses (blanks too).
   */
  regexTakes(char: string): boolean {
    const depth = this.regex;
    if (depth === null || (depth === 0 && char !== '(' && char !== '|')) return false;
    if (char === '(') this.regex = depth + 1;
    else if (char === ')') this.regex = depth - 1;
    return true;
  }

  /** After a word of the test: `]]` ends it, `=~` makes the next word a regex. A problem when a regex's parenthesis was left open. */
  afterWord(word: ShellWord): string | undefined {
    const unclosed = this.regex !== null && this.regex > 0;
    this.regex = null;
    // Any `]]` ends the test (a quoted one too: ending early reads more, never less).
    if (this.active && word.text === ']]') this.active = false;
    if (this.active && word.text === '=~' && !word.dynamic) this.regex = 0;
    return unclosed ? 'unclosed parenthesis in a [[ =~ regex' : undefined;
  }

  /** The command ended: no test is open any more. */
  end(): void {
    this.active = false;
    this.regex = null;
  }
}
