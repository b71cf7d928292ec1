/*
 * Claude Code resolves each file tool's path (Read, Write, Edit, Glob, Grep, ...) with its
 * expandPath: the text trimmed first (String.prototype.trim), then `~` or `~/...` joined to the
 * user's home directory. Other tools read the text as written. A rule reads every spelling a
 * tool may open, so ` .env` meets a deny of `**` + `/.env` and `~/repo/secrets/key` is not read as
 * a directory named `~` inside the project.
 */

/**
 * The spellings of a path one input value may name: as written and, when whitespace ends it on
 * either side, trimmed. An allow must cover both; a deny or an ask names either.
 */
export function toolPathSpellings(raw: string): string[] {
  const trimmed = raw.trim();
  return trimmed === raw ? [raw] : [raw, trimmed];
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
