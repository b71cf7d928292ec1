import { AirlockError } from '../errors.js';
import type { Principal } from '../store/accounts.js';

/** A token bucket per credential: `burst` requests at once, refilled at `perSecond`. */
export interface RateLimitOptions {
  perSecond: number;
  burst: number;
}

/** The default limit when one is on (the PostgreSQL default; the embedded SQLite store has none). */
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { perSecond: 100, burst: 500 };

/** The planes a limit applies to: executors poll and heartbeat, and are left alone. */
const LIMITED_PLANES = new Set(['agent', 'member']);

/** A refused request: 429 with the seconds to wait (the `Retry-After` header). */
export class RateLimitedError extends AirlockError {
  override readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number, detail?: string) {
    super(
      'rate_limited',
      detail ?? `this credential sent too many requests; retry after ${retryAfterSeconds} s`,
    );
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Counts requests per credential and refuses those past the limit. */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly options: RateLimitOptions,
    // A monotonic clock: a wall clock set back would hold a credential's requests for as long.
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(options.perSecond > 0) || !(options.burst >= 1)) {
      throw new Error('a rate limit needs perSecond > 0 and burst >= 1');
    }
  }

  /**
   * Takes one request from the caller's bucket.
   * @throws RateLimitedError when the bucket is empty (agent and member planes only).
   */
  take(principal: Principal): void {
    if (!LIMITED_PLANES.has(principal.kind)) return;
    const now = this.now();
    const { perSecond, burst } = this.options;
    const bucket = this.buckets.get(principal.credential_id) ?? { tokens: burst, at: now };
    // Time that runs backwards (an injected clock) refills nothing and takes nothing away.
    const elapsed = Math.max(0, now - bucket.at);
    bucket.tokens = Math.min(burst, bucket.tokens + (elapsed / 1000) * perSecond);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.buckets.set(principal.credential_id, bucket);
      throw new RateLimitedError(Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)));
    }
    bucket.tokens -= 1;
    this.buckets.set(principal.credential_id, bucket);
    if (this.buckets.size > 10_000) this.forgetFull(now);
  }

  /** Drops buckets that have refilled completely: they hold no information. */
  private forgetFull(now: number): void {
    const { perSecond, burst } = this.options;
    for (const [id, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * perSecond >= burst) this.buckets.delete(id);
    }
  }
}
