/** What the shell lexer reads a command line into: simple commands, their words and redirections. */

/** One word of a simple command, quotes removed. */
export interface ShellWord {
  /** The word's text; expansions (`$X`, `$(...)`, backticks) are kept as written. */
  readonly text: string;
  /** True when the word holds an expansion whose value the classifier cannot know. */
  readonly dynamic: boolean;
  /**
   * True when the word carries a command or an expansion inside an array
   * subscript (`'a[$(rm -rf y)]'`), which bash runs if it evaluates the word
   * as a variable name or arithmetic (see expansion-checks.ts).
   */
  readonly subscript?: true;
  /**
   * True when the word holds an expansion bash splits into several words
   * (unquoted `$X`, `$(...)`, or `"$@"`): where one word is expected, such
   * as an option's value before a wrapped command, it may carry the command.
   */
  readonly splits?: true;
  /** True for an arithmetic command, `((...))`: it sets variables as an assignment does. */
  readonly arithmetic?: true;
}

/** A redirection of a simple command. */
export interface ShellRedirection {
  readonly operator: string;
  readonly target: string;
  /** The file descriptor written before the operator (`2>` is `2`), when one is. */
  readonly fd?: string;
}

/** One simple command of a shell line, as the lexer read it. */
export interface LexedSegment {
  readonly words: ShellWord[];
  readonly redirections: ShellRedirection[];
  /** Command sources run by `$(...)`, backticks and `<(...)` inside this command's words. */
  readonly substitutions: string[];
  /** Bodies of `<<<` here-strings and `<<` here-documents fed to this command's input. */
  readonly inputs: { readonly text: string; readonly dynamic: boolean }[];
  /** True when `|` or `|&` ends the command: the next command reads what it prints. */
  pipesOut?: true;
}

/** A shell line split into simple commands, with what the lexer could not read. */
export interface LexedLine {
  readonly segments: LexedSegment[];
  /** Why the line cannot be read with confidence (unbalanced quotes, unclosed `$(`...). */
  readonly problems: string[];
}

export function emptySegment(): LexedSegment {
  return { words: [], redirections: [], substitutions: [], inputs: [] };
}
