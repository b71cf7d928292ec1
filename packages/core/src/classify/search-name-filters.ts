import { optionValues } from './flags.js';
import { programName } from './program-paths.js';

/*
 * A search limited to the files one glob names reads no other file: `grep -r --include='*.ts'
 * x .` and `rg -g '*.ts' x` open only files whose name ends in `.ts`, so a deny of `**` +
 * `/.env` is not reached through `.`, while one of `secrets/**` still is (`secrets/a.ts`).
 */

/** The options naming the files each search reads (grep matches base names, rg's glob too when it has no `/`). */
const FILTER_OPTIONS = new Map<string, string[]>([
  ['grep', ['--include']],
  ['egrep', ['--include']],
  ['fgrep', ['--include']],
  ['rg', ['-g', '--glob']],
]);

/**
 * Records that `key` (a directory) is searched with `filter` (null: with none): one filter it is
 * always searched with stays, two different ones, or none once, leave null.
 */
export function noteSearchFilter(
  filters: Map<string, string | null>,
  key: string,
  filter: string | null,
): void {
  const had = filters.get(key);
  filters.set(key, had === undefined || had === filter ? filter : null);
}

/**
 * The name filter every file a recursive search reads matches, as permissions read it (`*` and
 * the text after its glob's last wildcard: `*.ts`); none for another program, or when it is
 * given no glob or several, one with a `/`, a negation, a brace, an escape or no wildcard, or a
 * case-insensitive one (rg's `--iglob`, `--glob-case-insensitive`). `words` start with the program.
 */
export function searchNameFilter(words: readonly string[]): string | undefined {
  const names = FILTER_OPTIONS.get(programName(words[0] ?? ''));
  if (names === undefined) return undefined;
  const args = words.slice(1);
  if (args.some((arg) => /^--(iglob|glob-case-insensitive)(=|$)/.test(arg))) return undefined;
  const globs = optionValues(args, names);
  const glob = globs.length === 1 ? globs[0]! : '';
  if (/^:|[\s,!{}\\/]/.test(glob)) return undefined;
  const wildcard = Math.max(glob.lastIndexOf('*'), glob.lastIndexOf('?'), glob.lastIndexOf(']'));
  return wildcard < 0 ? undefined : `*${glob.slice(wildcard + 1)}`;
}
