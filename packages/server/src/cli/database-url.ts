import { forTerminal } from '@airlock/core/command-line';
import { flagText, type ParsedCommandLine, storeLocationOf, UsageError } from './command-line.js';
import { shownUrl } from './shown-value.js';

/**
 * Checks that a PostgreSQL setting holds a `postgres://` or `postgresql://`
 * URL, as `airlock serve` does. Anything else (a MySQL DATABASE_URL another
 * program set, a bare word) would reach the PostgreSQL driver, which reads a
 * host out of it and fails as if the database were down.
 * @param setting the flag or variable it came from (`--database-url`, `DATABASE_URL`).
 * @throws UsageError (exit 2) naming the setting, the URL shown without its password.
 */
export function checkPostgresUrl(command: string, setting: string, url: string): string {
  if (/^postgres(?:ql)?:\/\//i.test(url.trim())) return url;
  throw new UsageError(
    `${command}: ${setting} wants a postgres:// or postgresql:// URL, not "${forTerminal(shownUrl(url))}"`,
  );
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
