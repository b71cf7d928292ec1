/**
 * Database clients run a shell command of their own when their input says
 * so: psql's `\! CMD`, the mysql and mariadb clients' `system CMD` and
 * `\! CMD`, sqlite3's `.shell CMD` and `.system CMD`, sqlcmd's `!! CMD`.
 * The command runs here, not on the server: its tags are the call's.
 */
import type { EmbeddedCommands } from './embedded.js';

/** The shell command one line of a client's input runs (the rest of the line), or null. */
type LineEscape = (line: string) => string | null;

/** mysql's `system CMD` or `\! CMD`, at the line's start or after a `;`: the first one takes the rest. */
function mysqlEscape(line: string): string | null {
  // Sticky: tried at each statement's start only, so the blanks after each `;` are read once.
  const keyword = /\s*(?:system|\\!)\s+/iy;
  let start = 0;
  while (start <= line.length) {
    keyword.lastIndex = start;
    if (keyword.exec(line) !== null) return line.slice(keyword.lastIndex);
    const next = line.indexOf(';', start);
    if (next < 0) return null;
    start = next + 1;
  }
  return null;
}

const ESCAPES: Readonly<Record<string, LineEscape>> = {
  // A backslash command may follow SQL on its line; `\!` takes the rest of it.
  psql: (line) => {
    const at = line.indexOf('\\!');
    return at < 0 ? null : line.slice(at + 2);
  },
  mysql: mysqlEscape,
  mariadb: mysqlEscape,
  // Dot-commands and sqlcmd's `!!` are read only at the start of a line.
  sqlite3: (line) => /^\s*\.(?:shell|system)\s+(.*)$/s.exec(line)?.[1] ?? null,
  sqlcmd: (line) => /^\s*!!(.*)$/s.exec(line)?.[1] ?? null,
};

/** Every client {@link sqlClientEscapes} reads. */
export const SQL_ESCAPE_CLIENTS: ReadonlySet<string> = new Set(Object.keys(ESCAPES));

/**
 * The shell commands a database client runs from its arguments (`psql -c
 * '\! rm -rf x'`) and here-documents, read line by line (so a long input
 * costs time in proportion to its length); sqlite3's other dot-commands and
 * SQL are not read, so sqlite3 stays `unknown`.
 */
export function sqlClientEscapes(
  program: string,
  texts: readonly string[],
  out: EmbeddedCommands,
): void {
  const lineEscape = Object.hasOwn(ESCAPES, program) ? ESCAPES[program] : undefined;
  if (lineEscape === undefined) return;
  for (const text of texts) {
    for (const line of text.split('\n')) {
      const command = lineEscape(line)?.trim();
      if (command) out.lines.push({ line: command, via: `${program} shell escape` });
    }
  }
  if (program === 'sqlite3') {
    out.unknown ??= 'sqlite3 runs SQL and dot-commands the classifier does not read';
  }
}
