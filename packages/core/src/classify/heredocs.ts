import { subscriptProblem } from './expansion-checks.js';
import type { LexedSegment } from './lexed-line.js';

/** A here-document whose body follows the next newline. */
export interface PendingHeredoc {
  readonly delimiter: string;
  readonly stripTabs: boolean;
  readonly segment: LexedSegment;
  /** Whether the body is expanded (the delimiter is unquoted). */
  readonly dynamic: boolean;
}

/** Builtins that store their input in variables. */
const STORES_INPUT = new Set(['read', 'mapfile', 'readarray']);

/**
 * Why input fed to `segment` may run a command, or undefined: `read` and
 * `mapfile` store it in variables, so a subscript payload in it
 * (`read x <<< 'a[$(...)]'`) runs where bash evaluates the variable.
 */
export function inputProblem(segment: LexedSegment, shape: string): string | undefined {
  if (!segment.words.some((word) => STORES_INPUT.has(word.text))) return undefined;
  return subscriptProblem(shape);
}

/**
 * Reads the bodies of `heredocs`, in order, from `index` (just after a
 * newline): each runs to its delimiter line. Returns each body's text and
 * the index after the last; a body without its delimiter is a problem.
 */
export function readHeredocBodies(
  source: string,
  index: number,
  heredocs: readonly PendingHeredoc[],
  problems: string[],
): { index: number; bodies: { heredoc: PendingHeredoc; text: string }[] } {
  const bodies: { heredoc: PendingHeredoc; text: string }[] = [];
  let at = index;
  for (const heredoc of heredocs) {
    const lines: string[] = [];
    let closed = false;
    while (at < source.length) {
      const newline = source.indexOf('\n', at);
      const stop = newline < 0 ? source.length : newline;
      let line = source.slice(at, stop);
      at = newline < 0 ? source.length : newline + 1;
      if (heredoc.stripTabs) line = line.replace(/^\t+/, '');
      if (line === heredoc.delimiter) {
        closed = true;
        break;
      }
      lines.push(line);
    }
    if (!closed) problems.push(`here-document without its ${heredoc.delimiter} line`);
    bodies.push({ heredoc, text: lines.join('\n') });
  }
  return { index: at, bodies };
}
