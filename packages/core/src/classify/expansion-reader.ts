/** The shell lexer's reading of expansions: `$NAME`, `${...}`, `$((...))`, `$(...)`, backticks. */
import {
  arithmeticProblem,
  parameterProblem,
  unquotedParameterProblem,
} from './expansion-checks.js';
import { emptySegment, type LexedSegment } from './lexed-line.js';
import { QuotingReader } from './quoting-reader.js';
import { bracketArithmeticEnd, type Parentheses, readBackticks } from './shell-syntax.js';
import { WordBuilder } from './word-builder.js';

/** Substitutions nested deeper than this are not read: the line is unknown. */
const MAX_NESTING = 8;
/** `${...}` nested deeper than this (in one command line) is not read: the line is unknown. */
const MAX_PARAMETER_NESTING = 16;

/**
 * A single quote inside a double-quoted `${...}`: bash pairs it, so a `}`
 * after it does not end the expansion, where sh (and bash --posix) reads it
 * as a character. The lexer reads such a line both ways (see lexShellLine).
 */
export const PARAMETER_QUOTE_PROBLEM =
  'a single quote inside a double-quoted ${, which bash and sh end apart';

/** Where an expansion reader starts in its source, and how it reads. */
export interface ExpansionReaderOptions {
  readonly start: number;
  readonly depth: number;
  /** Where the source's parentheses close, shared with the nested readers of the same text. */
  readonly parentheses: Parentheses;
  /** True to read a double-quoted `${...}` as sh does (see PARAMETER_QUOTE_PROBLEM). */
  readonly posixParameters: boolean;
  /** True to read `$[` and `$'` as POSIX sh does: a `$` and what follows it. */
  readonly posixShell: boolean;
}

/** A command line read one level down, to its closing parenthesis (see ExpansionReader.nestedAt). */
export interface NestedReading {
  /** Reads to the closing parenthesis (or the end); returns the index after it. */
  run(): number;
  readonly closed: boolean;
  readonly segments: readonly LexedSegment[];
  readonly problems: readonly string[];
}

/**
 * The part of the shell lexer that reads expansions into the command being
 * read: the commands an expansion runs (`$(...)`, backticks, `<(...)`) become
 * the command's substitutions, and what it cannot read becomes a problem.
 * The lexer supplies the nested readings, since a substitution holds a whole
 * command line.
 */
export abstract class ExpansionReader extends QuotingReader {
  /** The simple command being read. */
  protected segment: LexedSegment = emptySegment();
  protected readonly depth: number;
  protected readonly parentheses: Parentheses;
  private readonly posixParameters: boolean;
  private readonly posixShell: boolean;
  /** How many `${` enclose the reading. */
  private parameterDepth = 0;

  constructor(source: string, options: ExpansionReaderOptions) {
    super(source, options.start);
    this.depth = options.depth;
    this.parentheses = options.parentheses;
    this.posixParameters = options.posixParameters;
    this.posixShell = options.posixShell;
  }

  /** A reading of the same text from `start`, one level down, stopping at its closing parenthesis. */
  protected abstract nestedAt(start: number): NestedReading;

  /** A reader of other text (an expanded body) at this depth. */
  protected abstract readerOf(text: string): ExpansionReader;

  /** `$NAME`, `${...}`, `$((...))`, `$(...)`, `$'...'` and backticks. */
  protected expansion(quoted: boolean): void {
    const source = this.source;
    const start = this.index;
    if (source[start] === '`') {
      const { inner, end } = readBackticks(source, start, quoted);
      if (end >= source.length) this.problems.push('unclosed backtick');
      this.segment.substitutions.push(inner);
      this.append(source.slice(start, end + 1), true);
      this.index = end + 1;
      return;
    }
    const next = source[start + 1];
    if (this.posixShell && (next === '[' || (next === "'" && !quoted))) {
      // sh has neither `$[...]` nor `$'...'`: a `$`, then a word or a single-quoted string.
      this.append('$');
      this.index++;
      return;
    }
    const arithmetic = next === '(' ? this.parentheses.arithmeticEnd(start + 1) : -1;
    if (arithmetic >= 0) {
      this.unreadExpansion(source.slice(start + 3, arithmetic), arithmeticProblem);
      this.append(source.slice(start, arithmetic + 2), true);
      this.index = arithmetic + 2;
    } else if (next === '(') {
      this.substitution(start + 2, '$(');
    } else if (next === '[') {
      // `$[1 << 2]` is bash's old arithmetic: read like `$((...))`, its `<<` no here-document.
      const end = bracketArithmeticEnd(source, start + 1);
      const stop = end < 0 ? source.length : end + 1;
      if (end < 0) this.problems.push('unclosed $[');
      this.unreadExpansion(source.slice(start + 2, stop - 1), arithmeticProblem);
      this.append(source.slice(start, stop), true);
      this.index = stop;
    } else if (next === '{') {
      this.parameter(start, quoted);
    } else if (next === "'" && !quoted) {
      this.ansiQuoted();
    } else if (next === '"' && !quoted) {
      // `$"..."` is a string translated by the locale: a double-quoted string.
      this.index++;
      this.doubleQuoted();
    } else if (next !== undefined && /[A-Za-z0-9_@*#?$!-]/.test(next)) {
      let end = start + 2;
      if (/[A-Za-z_]/.test(next)) while (end < source.length && /\w/.test(source[end]!)) end++;
      this.append(source.slice(start, end), true);
      this.index = end;
    } else {
      this.append('$');
      this.index++;
    }
  }

  /**
   * `${...}`, read to the `}` that ends it as the shell finds it: a quote, a
   * backslash or a nested expansion hides a `}` (`${x:-'}'}`), and each
   * `$(...)` inside (and `<(...)` outside double quotes) runs. bash 5.3's
   * `${ LIST; }` and `${| LIST; }` run LIST as a command substitution does:
   * it is read as one (older shells refuse it; the line is unknown). Past
   * MAX_PARAMETER_NESTING the rest of the line is kept unread.
   */
  private parameter(start: number, quoted: boolean): void {
    const source = this.source;
    if (this.parameterDepth >= MAX_PARAMETER_NESTING) {
      this.problems.push('${ nested too deeply');
      this.append(source.slice(start), true);
      this.index = source.length;
      return;
    }
    const commands = /^[ \t\n|]/.test(source[start + 2] ?? '');
    // The inside is read for where it ends and what it runs; the word keeps it as written.
    const [word, inDoubleQuotes, segment] = [this.current, this.inDoubleQuotes, this.segment];
    this.current = new WordBuilder();
    this.inDoubleQuotes = false;
    // A command list's own substitutions are found where the list is read as a line.
    if (commands) this.segment = emptySegment();
    this.parameterDepth++;
    this.index = start + 2;
    this.readToBrace(quoted && !commands);
    this.parameterDepth--;
    [this.current, this.inDoubleQuotes, this.segment] = [word, inDoubleQuotes, segment];
    const stop = Math.min(this.index + 1, source.length);
    if (this.index >= source.length) this.problems.push('unclosed ${');
    const inner = source.slice(start + 2, stop - 1);
    if (commands) {
      this.problems.push('a command list after ${ (bash 5.3 runs it as a command substitution)');
      this.segment.substitutions.push(inner.startsWith('|') ? inner.slice(1) : inner);
    } else {
      const problem = (quoted ? parameterProblem : unquotedParameterProblem)(inner);
      if (problem !== undefined) this.problems.push(problem);
    }
    this.append(source.slice(start, stop), true);
    this.index = stop;
  }

  /** Reads from `index` to the `}` that ends a `${...}` (`quoted` inside double quotes). */
  private readToBrace(quoted: boolean): void {
    const source = this.source;
    // Inside double quotes, bash pairs a single quote (a `}` within does not end), sh does not.
    let paired = false;
    while (this.index < source.length && (paired || source[this.index] !== '}')) {
      const char = source[this.index]!;
      if (quoted && char === "'") {
        this.problems.push(PARAMETER_QUOTE_PROBLEM);
        if (!this.posixParameters) paired = !paired;
        this.index++;
      } else if (paired) {
        // Between paired quotes only the end is looked for: a `$(...)` bash runs there
        // (`"${x:-'$(ls)'}"`) is read by the sh reading, where the quotes are characters.
        this.index++;
      } else if (quoted && (char === '$' || char === '`')) {
        this.expansion(true);
      } else if (!quoted && (char === '<' || char === '>') && source[this.index + 1] === '(') {
        this.substitution(this.index + 2, '(');
      } else if (!this.quotedPart(char)) {
        this.index++;
      }
    }
  }

  /**
   * The inside of `$((...))` or `$[...]`, which the lexer does not parse: a
   * problem when it may run a command, and the `$(...)` and backticks in it
   * read all the same (`$((1 + $(rm -rf y)))` keeps rm's tags).
   */
  protected unreadExpansion(inner: string, check: (inner: string) => string | undefined): void {
    const problem = check(inner);
    if (problem === undefined) return;
    this.problems.push(problem);
    if (/\$\(|`/.test(inner)) this.readExpandedBody(inner, this.segment);
  }

  /** Past the nesting limit the rest of the line is kept unread (reading it would exhaust the stack). */
  private tooDeep(from: number): boolean {
    if (this.depth < MAX_NESTING) return false;
    this.problems.push('command substitutions nested too deeply');
    this.append(this.source.slice(from), true);
    this.index = this.source.length;
    return true;
  }

  /** An array assignment `name=(a b $(c))`: its elements are words, not a subshell; `$(c)` runs. */
  protected arrayElements(): void {
    if (this.tooDeep(this.index)) return;
    const elements = this.nestedAt(this.index + 1);
    const end = elements.run();
    this.problems.push(...elements.problems);
    const substitutions = elements.segments.flatMap((segment) => segment.substitutions);
    this.segment.substitutions.push(...substitutions);
    this.append(this.source.slice(this.index, end), substitutions.length > 0);
    this.index = end;
  }

  /** `$(...)`, `<(...)`, `>(...)`: a nested command line read to its closing parenthesis. */
  protected substitution(from: number, opener: string): void {
    if (this.tooDeep(from - opener.length)) return;
    const nested = this.nestedAt(from);
    const end = nested.run();
    const inner = this.source.slice(from, end - (nested.closed ? 1 : 0));
    this.problems.push(...nested.problems);
    this.segment.substitutions.push(inner);
    this.append(this.source.slice(from - opener.length, end), true);
    this.index = end;
  }

  /** The command substitutions of an expanded here-document body, as the shell runs them. */
  protected readExpandedBody(text: string, segment: LexedSegment): void {
    const body = this.readerOf(text);
    body.expandOnly(segment);
    this.problems.push(...body.problems);
  }

  /**
   * Reads text where only expansions are special (a here-document body): a
   * backslash quotes `$`, backticks and itself; every `$(...)` and backtick
   * found is added to `segment`'s substitutions.
   */
  expandOnly(segment: LexedSegment): void {
    const source = this.source;
    this.segment = segment;
    while (this.index < source.length) {
      const char = source[this.index]!;
      if (char === '\\' && '$`\\\n'.includes(source[this.index + 1] ?? '')) this.index += 2;
      else if (char === '$' || char === '`') this.expansion(true);
      else this.index++;
    }
    this.current.clear();
  }
}
