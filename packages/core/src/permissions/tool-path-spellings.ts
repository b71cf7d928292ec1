/*
 * Claude Code resolves each file tool's path (Read, Write, Edit, Glob, Grep, ...) with its
 * expandPath: the text trimmed first (String.prototype.trim), then `~` or `~/...` joined to the
 * user's home directory. Gemini CLI's read_file, write_file and replace clean theirs with
 * resolveDefensiveToolPath: every NUL removed, then a leading `@` (and the slashes after it)
 * dropped when no entry of that name exists. Other tools read the text as written. A rule reads
 * every spelling a tool may open, so ` .env`, `.e\0nv` and `@.env` meet a deny of `**` + `/.env`
 * and `~/repo/secrets/key` is not read as a directory named `~` inside the project.
 */

/**
 * The spellings of a path one input value may name: as written; trimmed, when whitespace ends it
 * on either side; without its NUL characters, and without a leading `@` and the slashes after
 * it. An allow must cover them all; a deny or an ask names any.
 */
export function toolPathSpellings(raw: string): string[] {
  const spellings = new Set([raw, raw.trim()]);
  const cleaned = raw.replace(/\0/g, '');
  spellings.add(cleaned);
  const unmarked = cleaned.startsWith('@') ? cleaned.slice(1).replace(/^[\\/]+/, '') : '';
  if (unmarked !== '') spellings.add(unmarked);
  return [...spellings];
}

/**
 * Whether a tool's path lies in the user's home directory (`~`, `~/x`), which a tool expanding it
 * opens there: nothing says where that lies against the project root, so it cannot be placed.
 */
export function inHomeDirectory(raw: string): boolean {
  return raw === '~' || raw.startsWith('~/');
}

/**
 * The spellings of a glob a tool expands (ToolTarget's `names: glob`) that holds a backslash:
 * each backslash a separator (Gemini CLI's read_many_files turns it into `/` before it globs, so
 * `secrets\key` reads secrets/key) and an escape of the character after it (node's glob on
 * POSIX: `.e\nv` is `.env`), an escaped wildcard read as `?` (the one literal character it is).
 * As written when it holds none.
 */
export function globSpellings(raw: string): string[] {
  if (!raw.includes('\\')) return [raw];
  const separated = raw.replace(/\\/g, '/');
  const unescaped = raw.replace(/\\(.?)/gs, (_, next: string) =>
    /[*?[\]{}()!@+]/.test(next) ? '?' : next,
  );
  return separated === unescaped ? [separated] : [separated, unescaped];
}
