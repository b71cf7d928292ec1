/**
 * Where the lexer is in bash's `case WORD in PATTERN) LIST ;; ... esac`:
 * the patterns before each `)` run nothing (their `$(...)` does), the lists
 * after them are commands like any other. Clauses nest, innermost last.
 */
import type { ShellWord } from './lexed-line.js';
import { atCommandStart } from './shell-syntax.js';

type CaseState = 'subject' | 'in' | 'pattern' | 'body';

/** What a finished word does to the clauses. */
export type CaseStep = 'none' | 'patterns_start' | 'no_in';

export class CaseClauses {
  private readonly stack: CaseState[] = [];
  /** The `|` read in the pattern being read: a pattern has one word more than it has bars. */
  private bars = 0;

  /** Whether the lexer reads a pattern, before its `)`. */
  get inPattern(): boolean {
    return this.stack.at(-1) === 'pattern';
  }

  /** Whether a clause is still open (no `esac` yet). */
  get open(): boolean {
    return this.stack.length > 0;
  }

  /**
   * After the lexer finishes the last of `words` (its command's words so
   * far): `case` at a command's start opens a clause, its subject
   * and `in` follow (after `in` the patterns start: the lexer ends the
   * command there), and `esac` where a command or a pattern starts closes it.
   */
  afterWord(words: readonly ShellWord[]): CaseStep {
    const word = words.at(-1)!;
    const before = words.length - 1;
    const top = this.stack.at(-1);
    const text = word.dynamic ? '' : word.text;
    if (top === 'subject') this.stack[this.stack.length - 1] = 'in';
    else if (top === 'in') {
      this.stack.pop();
      // `case x y`: bash refuses it; the rest is read as plain commands, and the line is unknown.
      if (text !== 'in') return 'no_in';
      this.stack.push('pattern');
      this.bars = 0;
      return 'patterns_start';
    } else if (text === 'esac' && before === 0 && top !== undefined) this.stack.pop();
    else if (top !== 'pattern' && text === 'case' && atCommandStart(words, before)) {
      this.stack.push('subject');
    }
    return 'none';
  }

  /**
   * A `|` or the `)` of a pattern of `words` words: at `)` the list starts.
   * Returns a problem when the pattern is not one word per alternative
   * (`a b)`, which bash refuses; a command's words must not hide as one).
   */
  patternPart(char: '|' | ')', words: number): string | undefined {
    if (char === '|') {
      this.bars++;
      return words > this.bars ? 'case pattern of several words' : undefined;
    }
    if (this.inPattern) this.stack[this.stack.length - 1] = 'body';
    return words > this.bars + 1 ? 'case pattern of several words' : undefined;
  }

  /** `;;`, `;&` or `;;&`: the list ends, and the next pattern (or `esac`) follows. */
  endList(): void {
    if (this.stack.at(-1) === 'body') this.stack[this.stack.length - 1] = 'pattern';
    this.bars = 0;
  }
}
