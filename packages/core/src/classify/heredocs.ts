import { subscriptProblem } from './expansion-checks.js';
import type { LexedSegment } from './lexed-line.js';

/** A here-document whose body follows the next newline. */
export interface PendingHeredoc {
  readonly delimiter: string;
  readonly stripTabs: boolean;
  readonly segment: LexedSegment;
  /** Whether the body is expanded (the delimiter is unquoted). */
  readonly dynamic: boolean;
  /** Whether it feeds descriptor 0 (`3<<EOF` is no input of the command). */
  readonly stdin: boolean;
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

/** Whether a line ends in a backslash that is not itself quoted by one before it. */
function continues(line: string): boolean {
  let count = 0;
  while (count < line.length && line[line.length - 1 - count] === '\\') count++;
  return count % 2 === 1;
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
      let part = source.slice(at, stop);
      at = newline < 0 ? source.length : newline + 1;
      // With an unquoted delimiter a backslash-newline joins lines, before the delimiter is looked for.
      const parts: string[] = [];
      while (heredoc.dynamic && continues(part) && at < source.length) {
        parts.push(part.slice(0, -1));
        const next = source.indexOf('\n', at);
        part = source.slice(at, next < 0 ? source.length : next);
        at = next < 0 ? source.length : next + 1;
      }
      let line = parts.length > 0 ? parts.join('') + part : part;
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

/** `$(cat <<DELIM` (or `<<-`, the delimiter quoted or not) and the rest of its first line. */
const CAT_HEREDOC =
  /^\$\(\s*cat\s+<<(-?)\s*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([^\s;&|<>()'"]+))[ \t]*\n/;

/**
 * The text `$(cat <<DELIM ... DELIM)` prints when that substitution is a
 * whole word (`bash -c "$(cat <<'EOF' ... EOF)"`): the here-document's
 * body, with its `$(...)` as written. Null for any other text, and for a
 * body that holds another such substitution: reading each level's body as
 * a script would re-read the whole nest at every level (an 8 KB nest took
 * 130 ms), so a nested one is left to the expansion's reading (`unknown`).
 */
export function catHeredocOutput(text: string): string | null {
  const head = CAT_HEREDOC.exec(text);
  if (head === null) return null;
  const delimiter = head[2] ?? head[3] ?? head[4]!;
  const lines = text.slice(head[0].length).split('\n');
  const end = lines.findIndex(
    (line) => (head[1] === '-' ? line.replace(/^\t+/, '') : line) === delimiter,
  );
  if (
    end < 0 ||
    lines
      .slice(end + 1)
      .join('\n')
      .trim() !== ')'
  )
    return null;
  const body = lines.slice(0, end);
  if (body.some((line) => /\$\(\s*cat\s+<</.test(line))) return null;
  return (head[1] === '-' ? body.map((line) => line.replace(/^\t+/, '')) : body).join('\n');
}
