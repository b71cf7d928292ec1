import { withoutWrappers } from './emptied-files.js';
import type { LexedSegment } from './lexed-line.js';
import { printedText } from './substitution-values.js';

/** A redirection of descriptor `fd` (0 for input, 1 for output) away from the pipe. */
function redirects(segment: LexedSegment, fd: '0' | '1'): boolean {
  return segment.redirections.some(({ operator, fd: of }) => {
    if (fd === '0') return operator.startsWith('<') && (of ?? '0') === '0';
    return (/^(>|>>|>\||&>|&>>)$/.test(operator) || operator === '>&') && (of ?? '1') === '1';
  });
}

/**
 * The next command of a pipe as it runs after `segment`: when `segment` is echo or printf of
 * literal words (past plain wrappers), the next one reads what it prints, as from a here-string (`echo 'rm x' | sh`
 * runs rm, `echo -delete | xargs find x` runs `find x -delete`), unless either redirects it.
 */
export function withPipedText(segment: LexedSegment, next: LexedSegment): LexedSegment {
  if (segment.pipesOut !== true || next.inputs.length > 0 || redirects(next, '0')) return next;
  const words = withoutWrappers(segment.words);
  if (redirects(segment, '1') || words.some((word) => word.dynamic)) return next;
  // `echo *` prints the names the shell expands it to, `echo ~` a home directory: not read.
  if (segment.substitutions.length > 0 || words.some((word) => /[*?[{~]/.test(word.text)))
    return next;
  const text = printedText(words.map((word) => word.text));
  if (text === null) return next;
  return { ...next, inputs: [{ text, dynamic: false }] };
}
