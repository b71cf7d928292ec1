/** The shell lexer's reading of redirections, here-strings and here-documents. */
import { ExpansionReader } from './expansion-reader.js';
import { inputProblem, type PendingHeredoc, readHeredocBodies } from './heredocs.js';
import type { LexedSegment } from './lexed-line.js';
import { BLANK } from './quoting-reader.js';

/**
 * The part of the shell lexer that reads `<`, `>` and their kin into the
 * command being read: a file target becomes one of its redirections, a
 * here-string or a here-document on descriptor 0 its input (a body is read
 * after the next newline), and input a builtin stores may hold a problem.
 */
export abstract class RedirectionReader extends ExpansionReader {
  /** Here-documents opened on the line being read, whose bodies follow its newline. */
  protected readonly heredocs: PendingHeredoc[] = [];

  /** Ends the word being read (the lexer knows what a word's end starts). */
  protected abstract endWord(): void;

  /** Reads the redirection at the index (its operator, then its target word). */
  protected redirection(): void {
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
  protected readHeredocBodies(): void {
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
}
