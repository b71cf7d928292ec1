import { shellQuoted } from '@airlock/core';

/** The data directory the commands open when none is named (serve's and theirs alike). */
const DEFAULT_DATA_DIR = '.airlock';

/** What the printed command shows where the database URL's password goes. */
const PASSWORD_PLACEHOLDER = '<password>';

/**
 * A PostgreSQL URL to print in a command to copy: as given, or with its
 * password (in the authority or a `password` query parameter) shown as
 * `<password>`, so the banner never puts the secret in a terminal's
 * scrollback or a collected log. A text `URL` cannot read is printed as it is:
 * `serve` refused it before any banner.
 */
export function printedDatabaseUrl(url: string): string {
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
 * carry to open the store this kernel serves, wherever the setting came from
 * (a flag, or a variable set on serve's command line alone, as
 * `DATABASE_URL=… airlock serve` does, which the printed command would not
 * see): `--database-url` on PostgreSQL (its password shown as `<password>`
 * for the reader to fill in), `--data-dir` on SQLite outside the default
 * `./.airlock`, nothing in it. Without it a kernel on PostgreSQL printed a
 * command that opened `./.airlock` instead.
 */
export function printedStoreOption(store: {
  dataDir: string;
  databaseUrl: string | undefined;
}): string {
  if (store.databaseUrl)
    return ` --database-url ${shellQuoted(printedDatabaseUrl(store.databaseUrl))}`;
  return store.dataDir === DEFAULT_DATA_DIR ? '' : ` --data-dir ${shellQuoted(store.dataDir)}`;
}
