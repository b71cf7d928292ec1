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

/** What reading a pattern needs of the lexer: its word and command so far. */
export interface PatternReader {
  wordStarted(): boolean;
  words(): ShellWord[];
  endWord(): void;
  problem(text: string): void;
}

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
   * In a pattern, whether `char` is part of its syntax, read here: an
   * optional `(` before it, `|` between its words, `)` after it, where the
   * list starts. Its words run nothing and are dropped (its `$(...)` stay
   * in the command); a pattern of several words (`a b)`, which bash
   * refuses) stays, read as a command, and is a problem.
   */
  patternChar(char: string, reader: PatternReader): boolean {
    if (char === '(' && !reader.wordStarted() && reader.words().length === 0) return true;
    if (char !== '|' && char !== ')') return false;
    reader.endWord();
    // `esac)`: the word closed the clause, and the `)` is the shell's again.
    if (!this.inPattern) return false;
    const words = reader.words();
    if (char === '|') this.bars++;
    const several = words.length > this.bars + (char === ')' ? 1 : 0);
    if (several) reader.problem('case pattern of several words');
    if (char === ')') {
      this.stack[this.stack.length - 1] = 'body';
      if (!several) words.length = 0;
    }
    return true;
  }

  /** `;;`, `;&` or `;;&`: the list ends, and the next pattern (or `esac`) follows. */
  endList(): void {
    if (this.stack.at(-1) === 'body') this.stack[this.stack.length - 1] = 'pattern';
    this.bars = 0;
  }
}
