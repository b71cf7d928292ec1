import { shellQuoted } from '@airlock/core';
import type { ServeFlags } from './serve-args.js';

/** What the printed command shows where the database URL's password goes. */
const PASSWORD_PLACEHOLDER = '<password>';

/**
 * A PostgreSQL URL to print in a command to copy: as given, or with its
 * password (in the authority or a `password` query parameter) shown as
 * `<password>`, so the banner never puts the secret in a terminal's
 * scrollback or a collected log. A text `URL` cannot read is printed as it is:
 * `serve` refused it before any banner.
 */
function printedDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const inQuery = parsed.searchParams.has('password');
  if (!parsed.password && !inQuery) return url;
  // A sentinel URL encoding leaves alone, swapped for the placeholder after serialising.
  const sentinel = 'AIRLOCKPASSWORDPLACEHOLDER';
  if (parsed.password) parsed.password = sentinel;
  if (inQuery) parsed.searchParams.set('password', sentinel);
  return parsed.toString().replaceAll(sentinel, PASSWORD_PLACEHOLDER);
}

/**
 * The store option the commands `airlock serve` prints (`token create`) must
 * carry to open the store this kernel serves: `--database-url` when that flag
 * named PostgreSQL (its password shown as `<password>` for the reader to fill
 * in), `--data-dir` when that flag named the directory, nothing when the store
 * came from the environment (DATABASE_URL, AIRLOCK_DATA_DIR), which those
 * commands read the same way. Without it a kernel started with
 * `--database-url` printed a command that opened `./.airlock` instead.
 */
export function printedStoreOption(values: Pick<ServeFlags, 'data-dir' | 'database-url'>): string {
  const databaseUrl = values['database-url'];
  if (databaseUrl) return ` --database-url ${shellQuoted(printedDatabaseUrl(databaseUrl))}`;
  const dataDir = values['data-dir'];
  return dataDir ? ` --data-dir ${shellQuoted(dataDir)}` : '';
}
