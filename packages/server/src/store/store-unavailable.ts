import { AirlockError } from '../errors.js';

/** How long a client is told to wait before it retries a write the store refused. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * The store cannot take a write now (disk full, read-only, I/O error, the
 * database unreachable): nothing was changed, and the same request may
 * succeed later. Answered as 503 `store_unavailable` with `retry-after`.
 */
export class StoreUnavailableError extends AirlockError {
  override readonly retryAfterSeconds = STORE_RETRY_AFTER_SECONDS;

  constructor(reason: string) {
    super(
      'store_unavailable',
      `the store cannot take writes now (${reason}); nothing was changed, retry later`,
    );
    this.name = 'StoreUnavailableError';
  }
}

// SQLite's primary codes (better-sqlite3 names them SQLITE_FULL, SQLITE_IOERR_WRITE, ...)
// that say the file cannot be written now, rather than that the statement is wrong.
const SQLITE_UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY)(_|$)/;

// PostgreSQL SQLSTATEs with the same meaning: class 08 (connection), 53 (resources: disk
// full, out of memory), 57P01-03 (shutting down, cannot connect now), 25006 (read-only).
const POSTGRES_UNAVAILABLE = /^(08...|53...|57P0[123]|25006)$/;

// Node's socket errors when the PostgreSQL server cannot be reached at all.
const NETWORK_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
]);

/** Why an error means the store is unavailable (a short reason), or null when it means something else. */
function unavailableReason(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SQLITE_UNAVAILABLE.test(code)) return code === 'SQLITE_FULL' ? 'disk full' : code;
    if (POSTGRES_UNAVAILABLE.test(code)) {
      if (code === '53100') return 'disk full';
      return code === '25006' ? 'read-only' : `PostgreSQL ${code}`;
    }
    if (NETWORK_UNAVAILABLE.has(code)) return `database unreachable: ${code}`;
  }
  // The pg driver's own words when the connection drops mid-query.
  if (/^Connection terminated|^Client has encountered a connection error/.test(error.message)) {
    return 'database connection lost';
  }
  return null;
}

/**
 * The error as a {@link StoreUnavailableError} when it means the store cannot
 * take a write now; otherwise the error itself.
 */
export function asStoreUnavailable(error: unknown): unknown {
  if (error instanceof AirlockError) return error;
  const reason = unavailableReason(error);
  return reason === null ? error : new StoreUnavailableError(reason);
}
