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
 * The line `airlock serve` prints when the PostgreSQL store it was given
 * cannot be reached, or null for any other failure. Node's own message
 * (`connect ECONNREFUSED 127.0.0.1:5432`) names neither PostgreSQL nor the
 * setting to fix, so this says both, the URL's password left out.
 */
export function storeUnreachableLine(
  error: unknown,
  databaseUrl: string | undefined,
): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (!databaseUrl || typeof code !== 'string' || !UNREACHABLE.has(code)) return null;
  return forTerminal(
    `airlock serve: store_unreachable: cannot reach the PostgreSQL store at ${printedDatabaseUrl(databaseUrl)} (${(error as Error).message}); check --database-url or DATABASE_URL, and that PostgreSQL runs there and accepts connections`,
  );
}
