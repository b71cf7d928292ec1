import type { LexedSegment } from './lexed-line.js';
import { redirectsNowhere } from './streams.js';
import type { ActionTag } from './tags.js';

/** Redirections that empty their file before the command runs (`>>` only appends). */
const TRUNCATING = new Set(['>', '>|', '&>', '>&']);

/** Whether a segment redirects with `>` (not `>>`) to a file, emptying it before the command runs. */
function truncatesFile(segment: LexedSegment): boolean {
  if (segment.redirections.length === 0) return false;
  return segment.redirections.some(
    ({ operator, target }) => TRUNCATING.has(operator) && !redirectsNowhere(target),
  );
}

/**
 * `> f`, `: > f`, `cat /dev/null > f`: a command (or none) that prints
 * nothing, redirected with `>`, empties the file: its content is deleted.
 */
export function emptiesFile(
  segment: LexedSegment,
  program: string | null,
  args: readonly string[],
): boolean {
  if (!truncatesFile(segment)) return false;
  if (program === null || program === ':' || program === 'true' || program === 'false') return true;
  if (program === 'cat') return args.length > 0 && args.every((arg) => arg === '/dev/null');
  if (program === 'echo') return args.length === 1 && args[0] === '-n';
  if (program === 'printf') return args.length > 0 && args.every((arg) => arg === '');
  return false;
}

/** The tags of a file whose content is gone. */
export function addEmptied(tags: Set<ActionTag>): void {
  tags.add('delete');
  tags.add('destructive');
}
