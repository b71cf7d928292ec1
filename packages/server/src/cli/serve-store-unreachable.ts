import { forTerminal } from '@airlock/core';
import { printedDatabaseUrl } from './serve-store-option.js';

/** The socket errors that say the PostgreSQL server could not be reached at all. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * The SQLSTATEs with which a PostgreSQL server that was reached refuses the
 * session itself: no such database (3D000), no such role or no login
 * (28000), a wrong password (28P01), no right to connect (42501), a database
 * closed to connections (55000), a server starting or shutting down (57P03),
 * too many connections (53300).
 */
const SESSION_REFUSED = new Set(['3D000', '28000', '28P01', '42501', '55000', '57P03', '53300']);

/** The pg driver's words for a server that takes no TLS where the URL asks for it. */
const NO_TLS = 'The server does not support SSL connections';

/** Node's codes for a TLS handshake that failed (a certificate not trusted, expired, of another host). */
const TLS_FAILED = /CERT|SSL|TLS/;

/** Whether an error says a TLS connection to the server could not be opened. */
function isTlsFailure(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return error.message === NO_TLS || (typeof code === 'string' && TLS_FAILED.test(code));
}

/**
 * The session refusals that retrying does not cure: no such database, no such role or no
 * login, a wrong password, no right to connect. (A server starting, or out of connections,
 * is worth a retry: the store's `store_unavailable` says so.)
 */
const LOGIN_REFUSED = new Set(['3D000', '28000', '28P01', '42501']);

/**
 * What a one-shot command (`token`, `fence`) says of a PostgreSQL store it could not open for
 * a reason only its URL can fix, naming `setting`: a TLS connection that could not be opened
 * (the server takes no TLS where the URL asks for it, a certificate not trusted, expired or of
 * another host), or a session refused for its database, role or password. Null for any other
 * failure, which the store's own code says (`store_unavailable`, retry later). The driver
 * says only the first part.
 */
export function connectionRefusalDetail(error: unknown, setting: string): string | null {
  return refusalSentence(error, setting, '', LOGIN_REFUSED);
}

/**
 * The sentence for a TLS connection that could not be opened, or a session refused with one of
 * `refused`'s SQLSTATEs, naming the setting to fix (and the server, `where`); null otherwise.
 */
function refusalSentence(
  error: unknown,
  setting: string,
  where: string,
  refused: ReadonlySet<string>,
): string | null {
  if (isTlsFailure(error)) {
    return `cannot open a TLS connection to the PostgreSQL store${where} (${error.message}); check sslmode and the certificate files in ${setting}`;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && typeof code === 'string' && refused.has(code)) {
    return `the PostgreSQL server${where} refused the session (${error.message}: ${code}); check the user, password and database in ${setting}, and that the role may connect`;
  }
  return null;
}

/**
 * The line `airlock serve` prints when its PostgreSQL store could not be
 * opened, or null for any other failure. The driver's own message
 * (`connect ECONNREFUSED 127.0.0.1:5432`, `database "x" does not exist`,
 * `The server does not support SSL connections`) names neither PostgreSQL
 * nor the setting to fix, so this says both, the URL's password left out,
 * and what to check: the server (not reached), the URL's user, password and
 * database (a session refused), or its TLS settings (a handshake failed).
 */
export function storeUnreachableLine(
  error: unknown,
  databaseUrl: string | undefined,
): string | null {
  if (!databaseUrl || !(error instanceof Error)) return null;
  const code = (error as NodeJS.ErrnoException).code;
  const url = printedDatabaseUrl(databaseUrl);
  const setting = '--database-url or DATABASE_URL';
  const line =
    typeof code === 'string' && UNREACHABLE.has(code)
      ? `cannot reach the PostgreSQL store at ${url} (${error.message}); check ${setting}, and that PostgreSQL runs there and accepts connections`
      : refusalSentence(error, setting, ` at ${url}`, SESSION_REFUSED);
  if (line === null) return null;
  return forTerminal(`airlock serve: store_unreachable: ${line}`);
}
