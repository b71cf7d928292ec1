/**
 * Database clients run a shell command of their own when their input says
 * so: psql's `\! CMD`, the mysql and mariadb clients' `system CMD` and
 * `\! CMD`, sqlite3's `.shell CMD` and `.system CMD`, sqlcmd's `!! CMD`.
 * The command runs here, not on the server: its tags are the call's.
 */
import type { EmbeddedCommands } from './embedded.js';

/** The client programs and how a line of their input runs a shell command (the rest of the line). */
const ESCAPES: Readonly<Record<string, RegExp>> = {
  psql: /\\!\s*([^\n]*)/g,
  mysql: /(?:^|[\n;])\s*(?:system|\\!)\s+([^\n]*)/gi,
  mariadb: /(?:^|[\n;])\s*(?:system|\\!)\s+([^\n]*)/gi,
  sqlite3: /(?:^|[\n;])\s*\.(?:shell|system)\s+([^\n]*)/g,
  sqlcmd: /(?:^|\n)\s*!!\s*([^\n]*)/g,
};

/** Every client {@link sqlClientEscapes} reads. */
export const SQL_ESCAPE_CLIENTS: ReadonlySet<string> = new Set(Object.keys(ESCAPES));

/**
 * The shell commands a database client runs from its arguments (`psql -c
 * '\! rm -rf x'`) and here-documents; sqlite3's other dot-commands and SQL
 * are not read, so sqlite3 stays `unknown`.
 */
export function sqlClientEscapes(
  program: string,
  texts: readonly string[],
  out: EmbeddedCommands,
): void {
  const shellEscape = ESCAPES[program];
  if (shellEscape === undefined || !Object.hasOwn(ESCAPES, program)) return;
  for (const text of texts) {
    for (const match of text.matchAll(shellEscape)) {
      const line = match[1]!.trim();
      if (line !== '') out.lines.push({ line, via: `${program} shell escape` });
    }
  }
  if (program === 'sqlite3')
    out.unknown ??= 'sqlite3 runs SQL and dot-commands the classifier does not read';
}
