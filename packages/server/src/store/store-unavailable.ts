import { AirlockError } from '../errors.js';

/** How long a client is told to wait before it retries a write the store refused. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * The store cannot serve a request now, typically a write (disk full,
 * read-only, I/O error, the database unreachable): nothing was changed, and
 * the same request may succeed later. Answered as 503 `store_unavailable`
 * with `retry-after`. With `maybeChanged`, the connection was lost after the
 * COMMIT went out: the database may have made the change, so the answer says
 * to read before retrying rather than that nothing was changed.
 */
export class StoreUnavailableError extends AirlockError {
  override readonly retryAfterSeconds = STORE_RETRY_AFTER_SECONDS;

  constructor(reason: string, options: { maybeChanged?: boolean } = {}) {
    super(
      'store_unavailable',
      options.maybeChanged
        ? `the store is unavailable (${reason}); the change may have been made: read what you changed before you retry`
        : `the store is unavailable (${reason}); nothing was changed, retry later`,
    );
    this.name = 'StoreUnavailableError';
  }
}
