/** How retries are spaced: exponential from `baseMs`, capped at `capMs`, with jitter. */
export interface Backoff {
  baseMs: number;
  capMs: number;
}

/** One second doubling up to fifteen minutes. */
export const DEFAULT_BACKOFF: Backoff = { baseMs: 1000, capMs: 15 * 60 * 1000 };

/**
 * The wait before the next attempt after `attempts` failed ones: the
 * exponential step, then a uniform draw in its upper half ("equal jitter"),
 * so that receivers that failed together are not retried together.
 */
export function retryDelayMs(attempts: number, backoff: Backoff, random = Math.random): number {
  const step = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(step / 2 + random() * (step / 2));
}
