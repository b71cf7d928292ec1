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

/** Glob patterns longer than this are read as any program (no program name is nearly so long). */
const MAX_PATTERN_LENGTH = 64;

/** One element of a glob pattern: any run of characters, any one character, or one of a set. */
type GlobToken =
  | { readonly kind: 'star' }
  | { readonly kind: 'one'; readonly fits: (char: string) => boolean };

/** The set a bracket expression opening at `open` stands for, and where it ends; null when unclosed. */
function bracket(pattern: string, open: number): { token: GlobToken; end: number } | null {
  let at = open + 1;
  const negated = pattern[at] === '!' || pattern[at] === '^';
  if (negated) at++;
  // A `]` first in the set is a member, not its end.
  const close = pattern.indexOf(']', pattern[at] === ']' ? at + 1 : at);
  if (close < 0) return null;
  const members = pattern.slice(at, close);
  const inSet = (char: string) => {
    for (let index = 0; index < members.length; index++) {
      const low = members[index]!;
      const high =
        members[index + 1] === '-' && index + 2 < members.length ? members[index + 2]! : null;
      if (high === null ? char === low : char >= low && char <= high) return true;
      if (high !== null) index += 2;
    }
    return false;
  };
  return { token: { kind: 'one', fits: (char) => inSet(char) !== negated }, end: close };
}

/**
 * The pattern as tokens (runs of `*` as one), or null when any name may fit:
 * an extglob group, a character class (`[[:alpha:]]`), or a pattern past
 * {@link MAX_PATTERN_LENGTH}.
 */
function globTokens(pattern: string): GlobToken[] | null {
  if (pattern.length > MAX_PATTERN_LENGTH || /[@+!*?]\(|\[:/.test(pattern)) return null;
  const tokens: GlobToken[] = [];
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at]!;
    const set = char === '[' ? bracket(pattern, at) : null;
    if (char === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (char === '?') tokens.push({ kind: 'one', fits: () => true });
    else if (set !== null) {
      tokens.push(set.token);
      at = set.end;
    } else tokens.push({ kind: 'one', fits: (other) => other === char });
  }
  return tokens;
}

/**
 * Whether `name` fits the tokens. A star first takes nothing and, on a
 * mismatch, one more character (the last star only): at most pattern
 * length times name length steps, never the exponential backtracking a
 * regular expression of many `.*` takes.
 */
function fits(tokens: readonly GlobToken[], name: string): boolean {
  let token = 0;
  let at = 0;
  let star = -1;
  let starAt = 0;
  while (at < name.length) {
    const current = tokens[token];
    if (current?.kind === 'star') {
      star = token++;
      starAt = at;
    } else if (current?.fits(name[at]!)) {
      token++;
      at++;
    } else if (star >= 0) {
      token = star + 1;
      at = ++starAt;
    } else return false;
  }
  while (tokens[token]?.kind === 'star') token++;
  return token === tokens.length;
}

/**
 * The programs the classifier knows that the glob `name` (lowercase, no
 * directory) fits, or null when it may be any program: more than
 * {@link MAX_GLOB_PROGRAMS} fit, or the pattern is one {@link globTokens} does not read.
 */
export function programsMatching(name: string): string[] | null {
  const tokens = globTokens(name);
  if (tokens === null) return null;
  const matches = PROGRAMS.filter((program) => fits(tokens, program));
  return matches.length > MAX_GLOB_PROGRAMS ? null : matches;
}

/**
 * Whether bash may expand the glob `pattern` into a word starting with `-` (an option: `*`
 * matches a file named `--write`) or into one of `words`; true for a pattern not read here.
 */
export function globMayGive(pattern: string, words: readonly string[]): boolean {
  const tokens = globTokens(pattern);
  if (tokens === null) return true;
  const first = tokens[0];
  if (first === undefined || first.kind === 'star' || first.fits('-')) {
    return words.length === 0 || words.some((word) => fits(tokens, word));
  }
  return false;
}
