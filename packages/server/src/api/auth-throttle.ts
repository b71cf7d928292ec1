import type { IncomingMessage } from 'node:http';
import { RateLimitedError } from './rate-limit.js';

/** How many failed authentications a peer may make: `burst` at once, then `perSecond`. */
export interface AuthFailureLimit {
  perSecond: number;
  burst: number;
}

/**
 * The default on every store: 20 failures at once, then one a second. A person
 * mistyping a token a few times never meets it; a scanner does at once.
 */
export const DEFAULT_AUTH_FAILURE_LIMIT: AuthFailureLimit = { perSecond: 1, burst: 20 };

/** Peers remembered at most; past this, peers whose bucket refilled are forgotten first. */
const MAX_PEERS = 10_000;

interface Bucket {
  failures: number;
  at: number;
}

/**
 * The peer a request came from, as the throttle counts it: the IPv4 address,
 * or the /64 prefix of an IPv6 address (one host usually holds a whole /64).
 * The socket's address, never a header a client could forge.
 */
export function peerOf(req: Pick<IncomingMessage, 'socket'>): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4) return v4[1]!;
  if (!address.includes(':')) return address;
  const groups = expandIpv6(address);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : address;
}

function expandIpv6(address: string): string[] | null {
  const [head, tail] = address.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return null;
  return [...left, ...Array<string>(missing).fill('0'), ...right];
}

/**
 * Counts failed authentications per peer (a token bucket of failures) and
 * refuses a peer that ran out with 429 `rate_limited` and a Retry-After. Only
 * failures are counted and only failures are refused: a valid credential is
 * authenticated first and never meets the throttle, so nobody sharing an
 * address with a scanner is locked out.
 */
export class AuthFailureThrottle {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: AuthFailureLimit,
    // A monotonic clock: a wall clock set back would hold a peer's failed logins for as long.
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(limit.perSecond > 0) || !(limit.burst >= 1)) {
      throw new Error('an authentication failure limit needs perSecond > 0 and burst >= 1');
    }
  }

  /**
   * Records one failed authentication of `peer`.
   * @throws RateLimitedError when the peer has no failure left.
   */
  failed(peer: string): void {
    const now = this.now();
    const { perSecond, burst } = this.limit;
    const bucket = this.buckets.get(peer) ?? { failures: burst, at: now };
    // Time that runs backwards (an injected clock) refills nothing and takes nothing away.
    const elapsed = Math.max(0, now - bucket.at);
    bucket.failures = Math.min(burst, bucket.failures + (elapsed / 1000) * perSecond);
    bucket.at = now;
    this.buckets.delete(peer);
    this.buckets.set(peer, bucket);
    if (this.buckets.size > MAX_PEERS) this.forget(now);
    if (bucket.failures < 1) {
      const seconds = Math.max(1, Math.ceil((1 - bucket.failures) / perSecond));
      throw new RateLimitedError(
        seconds,
        `too many failed authentications from this address; retry after ${seconds} s`,
      );
    }
    bucket.failures -= 1;
  }

  /** Drops refilled buckets, then the least recently seen ones, down to the bound. */
  private forget(now: number): void {
    const { perSecond, burst } = this.limit;
    for (const [peer, bucket] of this.buckets) {
      if (bucket.failures + (Math.max(0, now - bucket.at) / 1000) * perSecond >= burst) {
        this.buckets.delete(peer);
      }
    }
    for (const peer of this.buckets.keys()) {
      if (this.buckets.size <= MAX_PEERS) break;
      this.buckets.delete(peer);
    }
  }
}
