/** Characters that make a segment of a word a glob the shell expands (extglob's `@(` too). */
const WILDCARD = /[*?[]|[@+!]\(/;

/**
 * A word's first wildcard segment and the directory before it (`s?crets` and `.` of `s?crets/key`,
 * `x?.ts` and `src` of `src/x?.ts`), or null for a word without one.
 */
export function globParts(word: string): { directory: string; entry: string } | null {
  const segments = word.split('/');
  const at = segments.findIndex((segment) => WILDCARD.test(segment));
  if (at < 0) return null;
  const before = segments.slice(0, at).join('/');
  const directory = at === 0 ? '.' : before === '' ? '/' : before;
  return { directory, entry: segments[at]! };
}
