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
