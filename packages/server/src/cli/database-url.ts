import { forTerminal, shownKernelUrl } from '@airlock/core/command-line';
import { UsageError } from './command-line.js';

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
    `${command}: ${setting} wants a postgres:// or postgresql:// URL, not "${forTerminal(shownKernelUrl(url))}"`,
  );
}
