import { readFileSync } from 'node:fs';
import { forTerminal } from '@airlock/core/command-line';
import { flagText, type ParsedCommandLine, storeLocationOf, UsageError } from './command-line.js';
import { shownUrl } from './shown-value.js';

/**
 * Checks that a PostgreSQL setting holds a `postgres://` or `postgresql://`
 * URL, as `airlock serve` does. Anything else (a MySQL DATABASE_URL another
 * program set, a bare word) would reach the PostgreSQL driver, which reads a
 * host out of it and fails as if the database were down.
 * @param setting the flag or variable it came from (`--database-url`, `DATABASE_URL`).
 * The URL must also be one the driver can use (see {@link postgresUrlProblem}).
 * @throws UsageError (exit 2) naming the setting, the URL shown without its password.
 */
export function checkPostgresUrl(command: string, setting: string, url: string): string {
  if (!/^postgres(?:ql)?:\/\//i.test(url.trim())) {
    throw new UsageError(
      `${command}: ${setting} wants a postgres:// or postgresql:// URL, not "${forTerminal(shownUrl(url))}"`,
    );
  }
  const problem = postgresUrlProblem(url);
  if (problem === null) return url;
  throw new UsageError(`${command}: ${setting} ${forTerminal(problem)}`);
}

/** The query parameters that name a file the PostgreSQL driver reads as it starts. */
const SSL_FILES = ['sslcert', 'sslkey', 'sslrootcert'];

/**
 * What keeps the PostgreSQL driver (pg-connection-string) from using a
 * `postgres://` URL, said after the setting's name, or null: a text it cannot
 * read as a URL (`postgres://u:p@[::1`), which it refused only when the store
 * opened, as an `Invalid URL` naming no setting; or an `sslcert`, `sslkey` or
 * `sslrootcert` file this process cannot read, which it failed on with a bare
 * `ENOENT`. The URL is shown without its credentials and query.
 */
export function postgresUrlProblem(url: string): string | null {
  // As the driver reads it: spaces and stray % encoded, and `@/` (no host: a socket) given one.
  const text = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url)
    ? encodeURI(url).replace(/%25(\d\d)/g, '%$1')
    : url;
  const parsed = URL.parse(text) ?? URL.parse(text.replace('@/', '@localhost/'));
  if (!parsed) return `is not a URL the PostgreSQL driver can read: "${shownUrl(url)}"`;
  const port = parsed.searchParams.get('port');
  if (port !== null && !/^\d+$/.test(port)) {
    return `wants a port number in its port parameter, not "${port}"`;
  }
  for (const name of SSL_FILES) {
    const file = parsed.searchParams.get(name);
    if (file === null) continue;
    try {
      readFileSync(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      return `names an ${name} file the PostgreSQL driver cannot read: ${file} (${code})`;
    }
  }
  return null;
}

/**
 * The store a command opens (see storeLocationOf), its PostgreSQL URL
 * checked before anything loads: a `--database-url` or DATABASE_URL that is
 * not a postgres:// URL is a usage error naming where it came from, not a
 * database said to be down.
 * @throws UsageError (exit 2) on an empty store flag or a URL that is not postgres://.
 */
export function checkedStoreLocation(
  values: ParsedCommandLine['values'],
  command: string,
  env: NodeJS.ProcessEnv = process.env,
): { dataDir: string; databaseUrl: string | undefined } {
  const location = storeLocationOf(values, command, env);
  if (location.databaseUrl !== undefined) {
    const setting =
      flagText(values, 'database-url') === undefined ? 'DATABASE_URL' : '--database-url';
    checkPostgresUrl(command, setting, location.databaseUrl);
  }
  return location;
}
