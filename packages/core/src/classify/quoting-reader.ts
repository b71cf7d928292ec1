/** Quoting as bash reads it in a word: single and double quotes, backslashes and `$'...'`. */
import { readAnsiQuoted } from './shell-syntax.js';
import { WordBuilder } from './word-builder.js';

/** Bash splits words at spaces and tabs only; a carriage return is part of a word. */
export const BLANK: ReadonlySet<string> = new Set([' ', '\t']);

/**
 * The part of the shell lexer that reads quotes into the word being built;
 * the lexer supplies the expansions (`$...`, backticks) met inside double quotes.
 */
export abstract class QuotingReader {
  protected index: number;
  protected current = new WordBuilder();
  protected inDoubleQuotes = false;
  readonly problems: string[] = [];

  constructor(
    protected readonly source: string,
    start: number,
  ) {
    this.index = start;
  }

  /** Reads the expansion at `index` (`$NAME`, `$(...)`, a backtick...); `quoted` inside double quotes. */
  protected abstract expansion(quoted: boolean): void;

  protected append(text: string, dynamic = false): void {
    this.current.append(text, dynamic, this.inDoubleQuotes);
  }

  protected singleQuoted(): void {
    const end = this.source.indexOf("'", this.index + 1);
    if (end < 0) {
      this.problems.push('unbalanced single quote');
      this.append(this.source.slice(this.index + 1));
      this.index = this.source.length;
      return;
    }
    this.append(this.source.slice(this.index + 1, end));
    this.index = end + 1;
  }

  protected doubleQuoted(): void {
    this.index++;
    this.current.started = true;
    this.inDoubleQuotes = true;
    this.readDoubleQuoted();
    this.inDoubleQuotes = false;
  }

  private readDoubleQuoted(): void {
    const source = this.source;
    while (this.index < source.length) {
      const char = source[this.index]!;
      if (char === '"') {
        this.index++;
        return;
      }
      if (char === '\\' && '"\\$`\n'.includes(source[this.index + 1] ?? '')) {
        if (source[this.index + 1] !== '\n') this.append(source[this.index + 1]!);
        this.index += 2;
      } else if (char === '$' || char === '`') this.expansion(true);
      else {
        this.append(char);
        this.index++;
      }
    }
    this.problems.push('unbalanced double quote');
  }

  protected escaped(): void {
    const next = this.source[this.index + 1];
    this.index += 2;
    if (next === undefined) this.index = this.source.length;
    else if (next !== '\n') this.append(next);
  }

  /** `$'...'`: decodes the escapes so an obfuscated name (`$'\x72m'`) reads as what it is. */
  protected ansiQuoted(): void {
    const { text, end } = readAnsiQuoted(this.source, this.index);
    if (end >= this.source.length) this.problems.push("unbalanced $' quote");
    this.append(text);
    this.index = end + 1;
  }

  /**
   * Reads the quoted or expanded part `char` opens (`'…'`, `"…"`, `\x`, `$…`, a backquote), as
   * every word of a line is read; false when `char` opens none.
   */
  protected quotedPart(char: string): boolean {
    if (char === "'") this.singleQuoted();
    else if (char === '"') this.doubleQuoted();
    else if (char === '\\') this.escaped();
    else if (char === '$' || char === '`') this.expansion(false);
    else return false;
    return true;
  }

  /** Reads one word (for a redirection target) with the same quoting rules. */
  protected readWord(): { text: string; dynamic: boolean; raw: string; shape: string } {
    const saved = this.current;
    this.current = new WordBuilder();
    const start = this.index;
    const source = this.source;
    while (this.index < source.length) {
      const char = source[this.index]!;
      if (this.quotedPart(char)) continue;
      if (BLANK.has(char) || ';&|<>()\n'.includes(char)) break;
      this.append(char);
      this.index++;
    }
    const { text, dynamic, shape } = this.current;
    this.current = saved;
    return { text, dynamic, raw: source.slice(start, this.index), shape };
  }
}
