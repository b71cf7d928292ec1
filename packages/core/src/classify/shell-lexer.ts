import { CaseClauses, type PatternReader } from './case-clauses.js';
import { ConditionalTest } from './conditional-test.js';
import {
  arithmeticProblem,
  parameterProblem,
  unquotedParameterProblem,
} from './expansion-checks.js';
import { inputProblem, type PendingHeredoc, readHeredocBodies } from './heredocs.js';
import {
  emptySegment,
  type LexedLine,
  type LexedSegment,
  type ShellRedirection,
  type ShellWord,
} from './lexed-line.js';
import { BLANK, QuotingReader } from './quoting-reader.js';
import {
  arithmeticCommandEnd,
  bracketArithmeticEnd,
  conditionalOperator,
  opensConditional,
  Parentheses,
  readBackticks,
} from './shell-syntax.js';

export type { LexedLine, LexedSegment, ShellRedirection, ShellWord };

/** Substitutions nested deeper than this are not read: the line is unknown. */
const MAX_NESTING = 8;
const SEPARATORS = ['&&', '||', ';;', '|&', ';', '|', '&', '\n'];
/**
 * A tokenizer for classification, not a shell: it splits a command line at
 * unquoted separators and parentheses, removes quotes, keeps expansions
 * visible, collects the sources of command substitutions, here-strings and
 * here-documents, and reports what it cannot read instead of guessing.
 */
/** Where a lexer starts, what ends it and how deep it is. */
interface LexerOptions {
  readonly start?: number;
  /** A nested lexer stops at its closing parenthesis. */
  readonly closer?: ')';
  readonly depth?: number;
  readonly parentheses?: Parentheses;
  /** False to read the word after `[[ x =~` as any other word (see readUnclosed). */
  readonly regexes?: false;
}

class Lexer extends QuotingReader {
  private segment: LexedSegment = emptySegment();
  private readonly heredocs: PendingHeredoc[] = [];
  readonly segments: LexedSegment[] = [];
  /** For a nested lexer: whether its closing parenthesis was found. */
  closed = false;
  /** Inside bash's `[[ ... ]]`, where `&&`, `(` or `<` are the test's operators. */
  private readonly test: ConditionalTest;
  /** A re-reading reads no regex at any depth, so re-readings never nest (see readRegexText). */
  private readonly regexes: { readonly regexes?: false };
  private readonly cases = new CaseClauses();
  /** What a case pattern's reading needs of the lexer. */
  private readonly patternReader: PatternReader = {
    wordStarted: () => this.current.started,
    words: () => this.segment.words,
    endWord: () => this.endWord(),
    problem: (text) => this.problems.push(text),
  };

  private readonly closer: ')' | null;
  private readonly depth: number;
  /** Where the source's parentheses close, shared with the nested lexers reading the same text. */
  private readonly parentheses: Parentheses;

  /** Reads `source` from `start`; a nested lexer stops at its closing parenthesis. */
  constructor(source: string, options: LexerOptions = {}) {
    super(source, options.start ?? 0);
    this.closer = options.closer ?? null;
    this.depth = options.depth ?? 0;
    this.parentheses = options.parentheses ?? new Parentheses(source);
    this.test = new ConditionalTest(options.regexes ?? true);
    this.regexes = options.regexes === false ? { regexes: false } : {};
  }

  /** A lexer for the same text from `start`, one level down, stopping at its closing parenthesis. */
  private nestedAt(start: number): Lexer {
    const options = { start, closer: ')' as const, depth: this.depth + 1, ...this.regexes };
    return new Lexer(this.source, { ...options, parentheses: this.parentheses });
  }

  /** Reads until the end (or the closing parenthesis); returns the index after it. */
  run(): number {
    let depth = 0;
    const source = this.source;
    while (this.index < source.length) {
      const char = source[this.index]!;
      if (this.quotedPart(char)) continue;
      if (this.test.regexTakes(char, this.index)) {
        // `[[ x =~ (a|b) ]]`: the regex's `(`, `)` and `|` are part of its word.
        this.current.appendUnquoted(char);
        this.index++;
      } else if (this.cases.inPattern && this.cases.patternChar(char, this.patternReader)) {
        // `a|b)` is a case pattern: its words run nothing.
        this.index++;
      } else if (
        (char === '<' || char === '>') &&
        source[this.index + 1] === '(' &&
        !this.current.started
      ) {
        this.substitution(this.index + 2, '(');
      } else if (this.test.active && this.conditionalWord()) {
        // `[[ $a > $b && -f x ]]`: the test's operators are words of the `[[` command.
      } else if (char === '[' && !this.current.started && this.openConditional()) {
        // `[[` at a command's start: its operators are read as words until `]]`.
      } else if (char === '<' || char === '>' || (char === '&' && source[this.index + 1] === '>')) {
        this.redirection();
      } else if (char === '(' && !this.current.started && this.arithmeticCommand()) {
        // `((x = 1 << 2))` is arithmetic: its `<<` opens no here-document, its `;` ends nothing.
      } else if (char === '(' && this.current.started && this.current.text.endsWith('=')) {
        this.arrayElements();
      } else if (char === '(') {
        this.endSegment();
        depth++;
        this.index++;
      } else if (char === ')') {
        if (depth === 0 && this.closer === ')') {
          this.endSegment();
          if (this.heredocs.length > 0) this.readHeredocBodies();
          this.closed = true;
          return this.index + 1;
        }
        if (depth === 0) this.problems.push('unbalanced parenthesis');
        depth = Math.max(0, depth - 1);
        this.endSegment();
        this.index++;
      } else if (char === '#' && !this.current.started) {
        while (this.index < source.length && source[this.index] !== '\n') this.index++;
      } else if (BLANK.has(char)) {
        this.endWord();
        this.index++;
      } else {
        const separator = SEPARATORS.find((op) => source.startsWith(op, this.index));
        if (separator) {
          this.endSegment();
          if (separator === ';;' || source.startsWith(';&', this.index)) this.cases.endList();
          this.index += separator.length;
          if (separator === '\n') this.readHeredocBodies();
        } else {
          this.current.appendUnquoted(char);
          this.index++;
        }
      }
    }
    this.endSegment();
    if (this.heredocs.length > 0) this.readHeredocBodies();
    if (this.cases.open) this.problems.push('case without esac');
    if (this.closer !== null) this.problems.push('unclosed $( or ( substitution');
    else if (depth > 0) this.problems.push('unbalanced parenthesis');
    return this.index;
  }

  private endWord(): void {
    const words = this.segment.words;
    const before = words.length;
    this.current.finishInto(words);
    this.current.clear();
    if (words.length === before) return;
    const took = this.test.afterWord(words.at(-1)!);
    if (took !== null) this.readRegexText(took.from, took.problem);
    const step = this.cases.afterWord(words);
    if (step === 'no_in') this.problems.push('case without in');
    // `case x in`: the patterns and lists after it are commands of their own.
    if (step === 'patterns_start') this.pushSegment();
  }

  private endSegment(): void {
    this.endWord();
    this.pushSegment();
  }

  /** Ends the command being read without ending its word (there is none). */
  private pushSegment(): void {
    const segment = this.segment;
    if (
      segment.words.length > 0 ||
      segment.substitutions.length > 0 ||
      segment.redirections.length > 0 ||
      this.heredocs.some((heredoc) => heredoc.segment === segment)
    ) {
      this.segments.push(segment);
    }
    this.segment = emptySegment();
    this.test.end();
  }

  /**
   * A `=~` regex that took text a command would hold (see ConditionalTest):
   * the text is also read as commands (once, no regex read in it), so what
   * it holds keeps its tags; the line is unknown.
   */
  private readRegexText(from: number, problem: string): void {
    this.problems.push(problem);
    const text = this.source.slice(from, this.index);
    const rest = new Lexer(text, { depth: this.depth, regexes: false });
    rest.run();
    this.problems.push(...rest.problems);
    // The regex's own `$(...)` are this command's already: each is walked once, not once a reading.
    const known = new Set(this.segment.substitutions);
    for (const segment of rest.segments) {
      const fresh = segment.substitutions.filter((source) => !known.has(source));
      this.segments.push({ ...segment, substitutions: fresh });
    }
  }

  /** `[[` opening a conditional command: the word, and the lexer inside the test. */
  private openConditional(): boolean {
    if (!opensConditional(this.source, this.index, this.segment.words)) return false;
    this.segment.words.push({ text: '[[', dynamic: false });
    this.index += 2;
    this.test.active = true;
    return true;
  }

  /** Inside `[[ ... ]]`, an operator read as a word; false when there is none here (or the test ended). */
  private conditionalWord(): boolean {
    const operator = conditionalOperator(this.source, this.index);
    if (operator === null) return false;
    this.endWord();
    if (!this.test.active) return false;
    this.segment.words.push({ text: operator, dynamic: false });
    this.index += operator.length;
    return true;
  }

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
    const arithmetic = next === '(' ? this.parentheses.arithmeticEnd(start + 1) : -1;
    if (arithmetic >= 0) {
      this.unreadExpansion(source.slice(start + 3, arithmetic), arithmeticProblem, false);
      this.append(source.slice(start, arithmetic + 2), true);
      this.index = arithmetic + 2;
    } else if (next === '(') {
      this.substitution(start + 2, '$(');
    } else if (next === '[') {
      // `$[1 << 2]` is bash's old arithmetic: read like `$((...))`, its `<<` no here-document.
      const end = bracketArithmeticEnd(source, start + 1);
      const stop = end < 0 ? source.length : end + 1;
      if (end < 0) this.problems.push('unclosed $[');
      this.unreadExpansion(source.slice(start + 2, stop - 1), arithmeticProblem, false);
      this.append(source.slice(start, stop), true);
      this.index = stop;
    } else if (next === '{') {
      const end = source.indexOf('}', start + 2);
      const stop = end < 0 ? source.length : end + 1;
      if (end < 0) this.problems.push('unclosed ${');
      // Outside double quotes, `<(...)` in `${x:-...}` is a process substitution.
      const check = quoted ? parameterProblem : unquotedParameterProblem;
      this.unreadExpansion(source.slice(start + 2, stop - 1), check, !quoted);
      this.append(source.slice(start, stop), true);
      this.index = stop;
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

  /** An arithmetic command `((...))` at a command's start, read as one word; false when it is none. */
  private arithmeticCommand(): boolean {
    const end = arithmeticCommandEnd(this.parentheses, this.index, this.segment.words);
    if (end < 0) return false;
    this.unreadExpansion(this.source.slice(this.index + 2, end), arithmeticProblem, false);
    this.segment.words.push({
      text: this.source.slice(this.index, end + 2),
      dynamic: false,
      arithmetic: true,
    });
    this.index = end + 2;
    return true;
  }

  /**
   * The inside of `${...}` or `$((...))`, which the lexer does not parse: a
   * problem when it may run a command, and the `$(...)` and backticks in it
   * read all the same (`${x:-$(rm -rf y)}` keeps rm's tags).
   */
  private unreadExpansion(
    inner: string,
    check: (inner: string) => string | undefined,
    processes: boolean,
  ): void {
    const problem = check(inner);
    if (problem === undefined) return;
    this.problems.push(problem);
    if (/\$\(|`|[<>]\(/.test(inner)) this.readExpandedBody(inner, this.segment, processes);
  }

  /** An array assignment `name=(a b $(c))`: its elements are words, not a subshell; `$(c)` runs. */
  private arrayElements(): void {
    if (this.depth >= MAX_NESTING) {
      this.problems.push('command substitutions nested too deeply');
      this.append(this.source.slice(this.index), true);
      this.index = this.source.length;
      return;
    }
    const elements = this.nestedAt(this.index + 1);
    const end = elements.run();
    this.problems.push(...elements.problems);
    const substitutions = elements.segments.flatMap((segment) => segment.substitutions);
    this.segment.substitutions.push(...substitutions);
    this.append(this.source.slice(this.index, end), substitutions.length > 0);
    this.index = end;
  }

  /** `$(...)`, `<(...)`, `>(...)`: a nested command line read to its closing parenthesis. */
  private substitution(from: number, opener: string): void {
    if (this.depth >= MAX_NESTING) {
      // Deeper nesting is not read (and would exhaust the stack): the rest of the line is unknown.
      this.problems.push('command substitutions nested too deeply');
      this.append(this.source.slice(from - opener.length), true);
      this.index = this.source.length;
      return;
    }
    const nested = this.nestedAt(from);
    const end = nested.run();
    const inner = this.source.slice(from, end - (nested.closed ? 1 : 0));
    this.problems.push(...nested.problems);
    this.segment.substitutions.push(inner);
    this.append(this.source.slice(from - opener.length, end), true);
    this.index = end;
  }

  private redirection(): void {
    const source = this.source;
    // A word of digits right before `>` is the file descriptor, not an argument.
    let fd: string | undefined;
    if (this.current.started && /^[0-9]+$/.test(this.current.text) && !this.current.dynamic) {
      fd = this.current.text;
      this.current.clear();
    } else this.endWord();
    const operator = /^(<<<|<<-|<<|&>>|&>|>>|>&|<&|>\||<>|>|<)/.exec(source.slice(this.index))![0];
    this.index += operator.length;
    while (BLANK.has(source[this.index] ?? '')) this.index++;
    const target = this.readWord();
    // Only a here-string or here-document on descriptor 0 is the command's input.
    const stdin = fd === undefined || Number(fd) === 0;
    if (operator === '<<<') {
      if (stdin) this.segment.inputs.push({ text: target.text, dynamic: target.dynamic });
      this.checkInput(this.segment, target.shape);
    } else if (operator === '<<' || operator === '<<-') {
      this.heredocs.push({
        delimiter: target.text,
        stripTabs: operator === '<<-',
        segment: this.segment,
        dynamic: !/['"\\]/.test(target.raw),
        stdin,
      });
    } else {
      this.segment.redirections.push({ operator, target: target.text, ...(fd ? { fd } : {}) });
    }
  }

  /** After a newline: the bodies of the here-documents opened on the line just read. */
  private readHeredocBodies(): void {
    const read = readHeredocBodies(this.source, this.index, this.heredocs.splice(0), this.problems);
    this.index = read.index;
    for (const { heredoc, text } of read.bodies) {
      if (heredoc.stdin) heredoc.segment.inputs.push({ text, dynamic: heredoc.dynamic });
      if (!heredoc.dynamic) this.checkInput(heredoc.segment, text);
      // An unquoted delimiter expands the body: its `$(...)` and backticks run (POSIX 2.7.4).
      if (heredoc.dynamic && /[$`]/.test(text)) this.readExpandedBody(text, heredoc.segment);
    }
  }

  private checkInput(segment: LexedSegment, shape: string): void {
    const problem = inputProblem(segment, shape);
    if (problem !== undefined) this.problems.push(problem);
  }

  /** The command substitutions of an expanded here-document body, as the shell runs them. */
  private readExpandedBody(text: string, segment: LexedSegment, processes = false): void {
    const body = new Lexer(text, { depth: this.depth, ...this.regexes });
    body.expandOnly(segment, processes);
    this.problems.push(...body.problems);
  }

  /**
   * Reads text where only expansions are special (a here-document body): a
   * backslash quotes `$`, backticks and itself; every `$(...)` and backtick
   * found (and `<(...)`, `>(...)` when `processes`, as in an unquoted
   * `${x:-...}`) is added to `segment`'s substitutions.
   */
  expandOnly(segment: LexedSegment, processes: boolean): void {
    const source = this.source;
    this.segment = segment;
    while (this.index < source.length) {
      const char = source[this.index]!;
      if (char === '\\' && '$`\\\n'.includes(source[this.index + 1] ?? '')) this.index += 2;
      else if (char === '$' || char === '`') this.expansion(true);
      else if (processes && (char === '<' || char === '>') && source[this.index + 1] === '(') {
        this.substitution(this.index + 2, '(');
      } else this.index++;
    }
    this.current.clear();
  }
}

/**
 * Reads a shell command line into simple commands for classification. Never
 * throws: what it cannot read is listed in `problems`, and the caller treats
 * the line as unknown.
 */
export function lexShellLine(source: string): LexedLine {
  const lexer = new Lexer(source);
  lexer.run();
  return { segments: lexer.segments, problems: lexer.problems };
}
