import { CaseClauses, type PatternReader } from './case-clauses.js';
import { ConditionalTest } from './conditional-test.js';
import { arithmeticProblem } from './expansion-checks.js';
import { functionHeaderEnd } from './function-definitions.js';
import {
  emptySegment,
  type LexedLine,
  type LexedSegment,
  type ShellRedirection,
  type ShellWord,
} from './lexed-line.js';
import { BLANK } from './quoting-reader.js';
import { RedirectionReader } from './redirection-reader.js';
import {
  arithmeticCommandEnd,
  conditionalOperator,
  extglobGroupEnd,
  globQualifierCode,
  opensConditional,
  opensShortForm,
  Parentheses,
  startsZshBody,
} from './shell-syntax.js';

export type { LexedLine, LexedSegment, ShellRedirection, ShellWord };

const SEPARATORS = ['&&', '||', ';;', '|&', ';', '|', '&', '\n'];

/** How a lexer reads what shells read apart; every lexer reading the line shares it. */
export interface Reading {
  /** False to read the word after `[[ x =~` as any other word (see readRegexText). */
  readonly regexes?: false;
  /** True to read a double-quoted `${...}` as sh does (see PARAMETER_QUOTE_PROBLEM). */
  readonly posixParameters?: true;
  /** True to read bash's own syntax (`[[`, `((`, `&>`, `$[`, `$'`) as POSIX sh does. */
  readonly posixShell?: true;
}

/** Where a lexer starts, what ends it and how deep it is. */
interface LexerOptions extends Reading {
  readonly start?: number;
  /** A nested lexer stops at its closing parenthesis. */
  readonly closer?: ')';
  readonly depth?: number;
  readonly parentheses?: Parentheses;
}

/**
 * A tokenizer for classification, not a shell: it splits a command line at
 * unquoted separators and parentheses, removes quotes, keeps expansions
 * visible (see ExpansionReader), collects the sources of command
 * substitutions, here-strings and here-documents, and reports what it cannot
 * read instead of guessing.
 */
class Lexer extends RedirectionReader {
  readonly segments: LexedSegment[] = [];
  /** For a nested lexer: whether its closing parenthesis was found. */
  closed = false;
  /** Inside bash's `[[ ... ]]`, where `&&`, `(` or `<` are the test's operators. */
  private readonly test: ConditionalTest;
  /** A re-reading reads no regex at any depth, so re-readings never nest (see readRegexText). */
  private readonly reading: Reading;
  private readonly cases = new CaseClauses();
  /** What a case pattern's reading needs of the lexer. */
  private readonly patternReader: PatternReader = {
    wordStarted: () => this.current.started,
    words: () => this.segment.words,
    endWord: () => this.endWord(),
    problem: (text) => this.problems.push(text),
  };

  private readonly closer: ')' | null;
  /** The word before was the `]]` that ended a `[[` test. */
  private testEnded = false;
  /** The command holds an `if`, `while` or `until` (see startsZshBody). */
  private shortForm = false;

  /** Reads `source` from `start`; a nested lexer stops at its closing parenthesis. */
  constructor(source: string, options: LexerOptions = {}) {
    super(source, {
      start: options.start ?? 0,
      depth: options.depth ?? 0,
      parentheses: options.parentheses ?? new Parentheses(source),
      posixParameters: options.posixParameters === true,
      posixShell: options.posixShell === true,
    });
    this.closer = options.closer ?? null;
    this.test = new ConditionalTest(options.regexes ?? true);
    this.reading = {
      ...(options.regexes === false ? { regexes: false } : {}),
      ...(options.posixParameters ? { posixParameters: true } : {}),
      ...(options.posixShell ? { posixShell: true } : {}),
    };
  }

  /** A lexer for the same text from `start`, one level down, stopping at its closing parenthesis. */
  protected nestedAt(start: number): Lexer {
    const options = { start, closer: ')' as const, depth: this.depth + 1, ...this.reading };
    return new Lexer(this.source, { ...options, parentheses: this.parentheses });
  }

  /** A lexer for an expanded body at this depth. */
  protected readerOf(text: string): Lexer {
    return new Lexer(text, { depth: this.depth, ...this.reading });
  }

  /** bash's `&>` at `index`; sh reads `a &> f` as `a &` and `> f`. */
  private bothRedirected(): boolean {
    return this.source[this.index + 1] === '>' && !this.reading.posixShell;
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
      } else if (char === '<' || char === '>' || (char === '&' && this.bothRedirected())) {
        this.redirection();
      } else if (char === '(' && !this.current.started && this.arithmeticCommand()) {
        // `((x = 1 << 2))` is arithmetic: its `<<` opens no here-document, its `;` ends nothing.
      } else if (char === '(' && this.current.started && this.current.text === '=') {
        // zsh's `=(list)` runs list as a process substitution (bash refuses the line).
        this.problems.push("zsh's =(...) process substitution");
        this.substitution(this.index + 1, '(');
      } else if (char === '(' && this.current.started && this.current.text.endsWith('=')) {
        this.arrayElements();
      } else if (char === '(' && this.current.started && this.globQualifiers()) {
        // `ls *(e:'rm -rf x':)`: zsh runs the qualifier's code for each file.
      } else if (char === '(' && this.current.started && this.extglobGroup()) {
        // `cat @(secrets)/key` under extglob reads secrets/key; bash without it refuses the line.
      } else if (char === '(' && this.functionHeader()) {
        // `f() { BODY; }` defines f and runs nothing: read as `function f`, whose body is read.
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
          if (separator === '|' || separator === '|&') this.segment.pipesOut = true;
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

  protected endWord(): void {
    const words = this.segment.words;
    const before = words.length;
    this.current.finishInto(words);
    this.current.clear();
    if (words.length === before) return;
    if (this.startsZshBody(words)) return;
    const testing = this.test.active;
    const took = this.test.afterWord(words.at(-1)!);
    this.testEnded = testing && !this.test.active;
    if (took !== null) this.readRegexText(took.from, took.problem);
    const step = this.cases.afterWord(words);
    if (step === 'no_in') this.problems.push('case without in');
    // `case x in`: the patterns and lists after it are commands of their own.
    if (step === 'patterns_start') this.pushSegment();
  }

  /**
   * zsh's glob qualifiers right after a word (`*(e:CODE:)`, `*(+NAME)`, see
   * globQualifierCode): their code is read as a command substitution, and
   * the line is unknown (bash refuses it). False when they run no code.
   */
  private globQualifiers(): boolean {
    const end = this.parentheses.closeOf(this.index);
    const head = end < 0 ? '' : this.source.slice(this.index + 1, Math.min(end, this.index + 64));
    if (!/^[^()|\s]*?(e[^\w\s]|\+[\w-])/.test(head)) return false;
    const codes = globQualifierCode(this.source.slice(this.index + 1, end));
    if (codes.length === 0) return false;
    this.problems.push("a zsh glob qualifier's code");
    this.segment.substitutions.push(...codes);
    this.append(this.source.slice(this.index, end + 1), true);
    this.index = end + 1;
    return true;
  }

  /** Appends an extglob group (see extglobGroupEnd) to the word; false when `(` opens none. */
  private extglobGroup(): boolean {
    const close = this.parentheses.closeOf(this.index);
    const first = this.segment.words.length === 0;
    const end = extglobGroupEnd(this.source, this.index, { text: this.current.text, close, first });
    if (end < 0) return false;
    for (const char of this.source.slice(this.index, end + 1)) this.current.appendUnquoted(char);
    this.index = end + 1;
    return true;
  }

  /** zsh's short forms (see startsZshBody): the body is a command of its own; bash refuses the line. */
  private startsZshBody(words: ShellWord[]): boolean {
    const seen = { test: this.testEnded, keyword: this.shortForm };
    if (opensShortForm(words.at(-1)!)) this.shortForm = true;
    if (!startsZshBody(words, seen)) return false;
    this.problems.push("words after a condition, a body of zsh's short if or while");
    const word = words.pop()!;
    this.pushSegment();
    this.segment.words.push(word);
    return true;
  }

  /** Reads `NAME()` as `function NAME` (see functionHeaderEnd); false for a subshell's `(`. */
  private functionHeader(): boolean {
    this.endWord();
    const words = this.segment.words;
    const end = functionHeaderEnd(this.source, this.index, words);
    if (end < 0) return false;
    if (words.length === 1) words.unshift({ text: 'function', dynamic: false });
    this.index = end;
    return true;
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
    this.testEnded = false;
    this.shortForm = false;
  }

  /**
   * A `=~` regex that took text a command would hold (see ConditionalTest):
   * the text is also read as commands (once, no regex read in it), so what
   * it holds keeps its tags; the line is unknown.
   */
  private readRegexText(from: number, problem: string): void {
    this.problems.push(problem);
    const text = this.source.slice(from, this.index);
    const rest = new Lexer(text, { depth: this.depth, ...this.reading, regexes: false });
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
    if (this.reading.posixShell) return false;
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

  /** An arithmetic command `((...))` at a command's start, read as one word; false when it is none. */
  private arithmeticCommand(): boolean {
    if (this.reading.posixShell) return false;
    const end = arithmeticCommandEnd(this.parentheses, this.index, this.segment.words);
    if (end < 0) return false;
    this.unreadExpansion(this.source.slice(this.index + 2, end), arithmeticProblem);
    this.segment.words.push({
      text: this.source.slice(this.index, end + 2),
      dynamic: false,
      arithmetic: true,
    });
    this.index = end + 2;
    return true;
  }
}

/** Reads `source` once, as `reading` says (shell-readings.ts combines readings). */
export function lexOnce(source: string, reading: Reading = {}): LexedLine {
  const lexer = new Lexer(source, reading);
  lexer.run();
  return { segments: lexer.segments, problems: lexer.problems };
}
