/**
 * A glob pattern in a program name (`/bin/r? -rf x`, `/usr/bin/[r]m`): bash
 * matches it against files before running, so the program is any file it
 * fits. The classifier does not look at files; it matches the pattern
 * against the programs it has rules for, and reads the command as each.
 */
import { TABLE_PROGRAMS } from './program-tags.js';
import { WRAPPER_NAMES } from './wrappers.js';

/** More programs than this matching is read as any program at all. */
export const MAX_GLOB_PROGRAMS = 16;

/** Programs read outside the tables of program-tags.ts. */
const OTHER_PROGRAMS = [
  ...['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish', 'busybox', 'toybox', 'eval'],
  ...['source', 'python', 'python3', 'perl', 'ruby', 'node', 'php', 'git', 'find', 'dd', 'sed'],
  ...['truncate', 'npm', 'npx', 'pnpm', 'yarn', 'bun', 'bunx', 'pip', 'pip3', 'uv', 'uvx'],
  ...['cargo', 'go', 'gem', 'apt', 'apt-get', 'dnf', 'yum', 'brew', 'sudoedit', 'su', 'trap'],
  ...['sqlite3', 'mkfs', 'powershell', 'pwsh', 'cmd', 'fd', 'socat', 'crontab'],
];

const PROGRAMS: readonly string[] = [
  ...new Set([...TABLE_PROGRAMS, ...WRAPPER_NAMES, ...OTHER_PROGRAMS]),
];

/** `*`, `?` or an extglob group. */
const WILDCARD = /[*?]|[@+!]\(/;

/**
 * Whether a program name (its last path part) holds a pattern bash matches
 * against files: a wildcard, or a bracket expression with something inside
 * (a `[` with a `]` after the next character; `[` alone is the test program).
 * Found by index, not by a pattern that backtracks over a run of `[`.
 */
export function isGlobName(name: string): boolean {
  const open = name.indexOf('[');
  return WILDCARD.test(name) || (open >= 0 && name.indexOf(']', open + 2) >= 0);
}

/** The regular expression for a bracket expression starting at `open`, and where it ends; null when unclosed. */
function bracket(pattern: string, open: number): { source: string; end: number } | null {
  let at = open + 1;
  const negated = pattern[at] === '!' || pattern[at] === '^';
  if (negated) at++;
  // A `]` first in the set is a member, not its end.
  const close = pattern.indexOf(']', pattern[at] === ']' ? at + 1 : at);
  if (close < 0) return null;
  const members = pattern.slice(at, close).replace(/[\\\]^]/g, '\\$&');
  return { source: `[${negated ? '^' : ''}${members}]`, end: close };
}

/** The pattern as an anchored regular expression; null for an extglob group (read as any name). */
function patternExpression(pattern: string): RegExp | null {
  // An extglob group or a character class (`[[:alpha:]]`) is not matched here: any name may fit.
  if (/[@+!*?]\(|\[:/.test(pattern)) return null;
  let source = '';
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at]!;
    const set = char === '[' ? bracket(pattern, at) : null;
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (set !== null) {
      source += set.source;
      at = set.end;
    } else source += char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  try {
    return new RegExp(`^${source}$`, 'i');
  } catch {
    return null;
  }
}

/**
 * The programs the classifier knows that the glob `name` (lowercase, no
 * directory) fits, or null when it may be any program: more than
 * {@link MAX_GLOB_PROGRAMS} fit, or the pattern is an extglob group.
 */
export function programsMatching(name: string): string[] | null {
  const expression = patternExpression(name);
  if (expression === null) return null;
  const matches = PROGRAMS.filter((program) => expression.test(program));
  return matches.length > MAX_GLOB_PROGRAMS ? null : matches;
}
