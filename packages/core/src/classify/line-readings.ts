/** Which shell reads a line the segment walker meets, and how many lines it reads twice. */
import type { LexedLine } from './lexed-line.js';
import { type LineShell, lexShellLine } from './shell-lexer.js';
import type { Walk } from './walk.js';

/**
 * Lines of one call read a second time as POSIX sh reads them: where the
 * readings differ, each may double what is walked below it.
 */
export const MAX_SH_READINGS = 16;

/** Interpreters that are a POSIX sh (dash on Debian, ash in busybox) and may not be bash. */
const POSIX_SHELL = /^(sh|dash|ash) (-c|<<)$/;
/** Any interpreter reading a line (`bash -c`, `zsh <<`, `su -c`). */
const ANY_SHELL = /^\S+ (-c|<<)$/;

/** The shell a walk's line runs in: the innermost interpreter it was found through; bash at the top. */
function shellOf(walk: Walk): LineShell {
  for (let index = walk.via.length - 1; index >= 0; index--) {
    const via = walk.via[index]!;
    if (POSIX_SHELL.test(via)) return 'sh';
    if (ANY_SHELL.test(via)) return 'bash';
  }
  return 'bash';
}

/**
 * Reads `line` as the shell that runs it does. A line run by `sh` or
 * `dash` is read as bash and as POSIX sh, where bash's own syntax is none
 * (`sh -c '[[ x || rm -rf y ]]'` runs rm in dash); past MAX_SH_READINGS
 * in one call such a line is read as bash alone, and is unknown.
 */
export function readLine(line: string, walk: Walk): LexedLine {
  if (shellOf(walk) === 'bash') return lexShellLine(line);
  if (walk.budget.shReadings-- > 0) return lexShellLine(line, 'sh');
  const read = lexShellLine(line);
  return { ...read, problems: ['too many lines read as sh', ...read.problems] };
}
