/** How the segment walker reads a line: which shell runs it, and how much it may read. */
import type { LexedLine, ShellWord } from './lexed-line.js';
import { type LineShell, lexShellLine } from './shell-readings.js';
import { type ActionTag, UNREAD_COMMAND_TAGS } from './tags.js';
import { push, type Walk } from './walk.js';

/** Nesting deeper than this is not followed: what is left may be any command (see pushUnread). */
export const MAX_DEPTH = 16;

/**
 * Characters of nested lines one classification reads: a nested line is read again at each level it is found at (`$(...)`, then the
 * `bash -c` word holding it), so without a bound 8 KB of nested `bash -c
 * "$(` took seconds. Sixteen times the longest command read.
 */
export const MAX_LINE_TEXT = 16 * 8192;

/**
 * Lines of one call read a second time as POSIX sh reads them: where the
 * readings differ, each may double what is walked below it.
 */
export const MAX_SH_READINGS = 16;

/** Interpreters that are a POSIX sh (dash on Debian, ash in busybox) and may not be bash. */
const POSIX_SHELL = /^(sh|dash|ash) (-c|<<)$/;
/** Any interpreter reading a line (`bash -c`, `zsh <<`, `su -c`). */
const ANY_SHELL = /^\S+ (-c|<<)$/;

/**
 * The shell a walk's line runs in: the innermost interpreter it was found
 * through. At the top no interpreter is named: the agents' harnesses run
 * bash, but an executor may hand the line to `/bin/sh` (Node's `exec`,
 * Python's `shell=True`), which is dash on Debian, so unless the caller
 * says bash runs it, it is read as both.
 */
function shellOf(walk: Walk): LineShell | 'either' {
  for (let index = walk.via.length - 1; index >= 0; index--) {
    const via = walk.via[index]!;
    if (POSIX_SHELL.test(via)) return 'sh';
    if (ANY_SHELL.test(via)) return 'bash';
  }
  return walk.topShell ?? 'either';
}

/**
 * What POSIX sh reads apart from bash (see Reading.posixShell): `[[`, `((`,
 * `$[`, `$'` and `&>`, once backslash-newlines are joined as both shells
 * join them. A line without any is read the same by both, so once. Where
 * either shell may run the line, `&>` alone is no reason: sh runs the same
 * command and empties the file bash would overwrite, and reading that as
 * `delete` would mark every `npm test &> log` destructive.
 */
const READ_APART = /\[\[|\(\(|\$\[|\$'/;

function readsApart(line: string, shell: 'sh' | 'either'): boolean {
  if (line.includes('\0')) return true;
  const joined = line.includes('\\\n') ? line.replaceAll('\\\n', '') : line;
  return READ_APART.test(joined) || (shell === 'sh' && joined.includes('&>'));
}

/**
 * Reads `line` as the shell that runs it does. A line run by `sh` or
 * `dash`, or by a shell the line does not name (the top, unless the caller
 * says bash), is read as bash and as POSIX sh, where bash's own syntax is
 * none (`sh -c '[[ x || rm -rf y ]]'` runs rm in dash); past MAX_SH_READINGS
 * in one call such a line is read as bash alone, and is unknown. Null
 * when the line is not read: nested too deeply, or past MAX_LINE_TEXT.
 */
export function readLine(line: string, walk: Walk): LexedLine | null {
  const words = [{ text: line, dynamic: false }];
  if (walk.depth > MAX_DEPTH) return unread(walk, words, 'nested too deeply');
  // The line a caller gives is read whatever its length (classifyShellCommand bounds it); nested ones count.
  if (walk.depth > 0 && line.length > walk.budget.text) {
    return unread(walk, words, 'too much nested text to read');
  }
  if (walk.depth > 0) walk.budget.text -= line.length;
  const shell = shellOf(walk);
  if (shell === 'bash' || !readsApart(line, shell)) return lexShellLine(line);
  if (walk.budget.shReadings-- > 0) return lexShellLine(line, 'sh');
  const read = lexShellLine(line);
  return { ...read, problems: ['too many lines read as sh', ...read.problems] };
}

/**
 * Records `words` as a command the walker does not read (nested too deeply,
 * or past a bound): it may be any command, so it carries every tag but
 * `read`, as a command too long to classify does, and a forbidden list
 * still meets what nesting hides (`echo $(echo $(... rm -rf x))`).
 */
export function pushUnread(
  walk: Walk,
  words: readonly ShellWord[],
  tags: Set<ActionTag>,
  note: string,
): void {
  for (const tag of UNREAD_COMMAND_TAGS) tags.add(tag);
  push(walk, words, tags, note);
}

function unread(walk: Walk, words: readonly ShellWord[], note: string): null {
  pushUnread(walk, words, new Set(), note);
  return null;
}
