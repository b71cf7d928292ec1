import { expandBraces } from './brace-expansion.js';
import { EXPANSION_MARK, subscriptProblem } from './expansion-checks.js';
import type { ShellWord } from './lexed-line.js';

/** A word of an assignment, which bash does not brace-expand (`x={a,b}` stays one value). */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

/**
 * The word the lexer is reading: its text with quotes removed, its shape
 * (each expansion as {@link EXPANSION_MARK}), whether it holds expansions,
 * and where it has unquoted braces and commas for brace expansion.
 */
export class WordBuilder {
  text = '';
  /** The word with quotes removed and each expansion as {@link EXPANSION_MARK}. */
  shape = '';
  started = false;
  dynamic = false;
  /** The word holds an expansion bash splits into words (unquoted, or `"$@"`). */
  private splits = false;
  /** Positions of unquoted `{`, `,` and `}`, once an unquoted `{` was seen. */
  private braces: number[] = [];

  /** Adds `text`; `dynamic` when it is an expansion, `quoted` when inside double quotes. */
  append(text: string, dynamic = false, quoted = false): void {
    this.text += text;
    this.shape += dynamic ? EXPANSION_MARK : text;
    this.started = true;
    if (dynamic) this.dynamic = true;
    if (dynamic && (!quoted || /^\$(@|\{[^}]*@)/.test(text))) this.splits = true;
  }

  /** Adds one character bash sees unquoted, noting it when it may take part in a brace expansion. */
  appendUnquoted(char: string): void {
    if (char === '{' || (this.braces.length > 0 && (char === ',' || char === '}'))) {
      this.braces.push(this.text.length);
    }
    this.append(char);
  }

  /** Forgets the word (a file descriptor number before a redirection). */
  clear(): void {
    this.text = '';
    this.shape = '';
    this.started = false;
    this.dynamic = false;
    this.splits = false;
    this.braces = [];
  }

  /**
   * Adds the words the word becomes to `words`: one, or several after brace
   * expansion (empty ones dropped, as bash does). A word that expands to
   * too many is kept as one word whose value is unknown.
   */
  finishInto(words: ShellWord[]): void {
    if (!this.started) return;
    const subscript = subscriptProblem(this.shape) !== undefined;
    if (this.braces.length < 2) {
      words.push(shellWord(this.text, this.dynamic, this.splits, subscript));
      return;
    }
    if (ASSIGNMENT.test(this.text)) {
      words.push(shellWord(this.text, this.dynamic, true, subscript));
      return;
    }
    const texts = expandBraces({ text: this.text, active: this.braces });
    if (texts === null) {
      words.push(shellWord(this.text, true, true, subscript));
      return;
    }
    for (const text of texts) {
      if (text !== '' || texts.length === 1) {
        words.push(shellWord(text, this.dynamic, this.splits, subscript));
      }
    }
  }
}

function shellWord(text: string, dynamic: boolean, splits: boolean, subscript: boolean): ShellWord {
  if (!splits && !subscript) return { text, dynamic };
  return {
    text,
    dynamic,
    ...(subscript ? { subscript: true as const } : {}),
    ...(splits ? { splits: true as const } : {}),
  };
}
