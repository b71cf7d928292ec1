/** How retries are spaced: exponential from `baseMs`, capped at `capMs`, with jitter. */
export interface Backoff {
  baseMs: number;
  capMs: number;
}

/** One second doubling up to fifteen minutes. */
export const DEFAULT_BACKOFF: Backoff = { baseMs: 1000, capMs: 15 * 60 * 1000 };

/**
 * Attempts before a delivery is dead-lettered, unless its channel says. With the default
 * backoff its retries span 1.75 to 3.5 hours (ten doublings to the 15-minute cap, then
 * steps of the cap), so a receiver down for a deploy or a short outage still gets every
 * notice; a park waits 24 h for its person. (Eight attempts gave up after about two minutes.)
 */
export const DEFAULT_MAX_ATTEMPTS = 24;

/**
 * The wait before the next attempt after `attempts` failed ones: the
 * exponential step, then a uniform draw in its upper half ("equal jitter"),
 * so that receivers that failed together are not retried together.
 */
export function retryDelayMs(attempts: number, backoff: Backoff, random = Math.random): number {
  const step = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(step / 2 + random() * (step / 2));
}
