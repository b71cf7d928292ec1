import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthFailureThrottle, peerOf } from './auth-throttle.js';
import { RateLimitedError } from './rate-limit.js';

const peer = (remoteAddress: string) => peerOf({ socket: { remoteAddress } } as never);

describe('AuthFailureThrottle', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses a peer past its burst, with the seconds until one failure refills', () => {
    let now = 0;
    const throttle = new AuthFailureThrottle({ perSecond: 0.5, burst: 3 }, () => now);
    for (let i = 0; i < 3; i++) throttle.failed('10.0.0.1');
    const refusal = (() => {
      try {
        throttle.failed('10.0.0.1');
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(RateLimitedError);
    expect((refusal as RateLimitedError).code).toBe('rate_limited');
    expect((refusal as RateLimitedError).retryAfterSeconds).toBe(2);
    // Another peer has its own bucket; the first one refills with time.
    expect(() => throttle.failed('10.0.0.2')).not.toThrow();
    now += 2000;
    expect(() => throttle.failed('10.0.0.1')).not.toThrow();
    expect(() => throttle.failed('10.0.0.1')).toThrow(RateLimitedError);
  });

  it('refills nothing, and takes nothing away, when its clock steps back', () => {
    // A clock set back an hour must not hold a peer's next failed login for an hour.
    let now = 3_600_000;
    const throttle = new AuthFailureThrottle({ perSecond: 0.5, burst: 3 }, () => now);
    throttle.failed('10.0.0.1');
    now = 0;
    for (let i = 0; i < 2; i++) throttle.failed('10.0.0.1');
    expect(() => throttle.failed('10.0.0.1')).toThrow(RateLimitedError);
    now = 2000;
    expect(() => throttle.failed('10.0.0.1')).not.toThrow();
  });

  it('does not read the wall clock by default', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 0, 1, 12) });
    const throttle = new AuthFailureThrottle({ perSecond: 1, burst: 3 });
    throttle.failed('10.0.0.1');
    // The wall clock set back an hour (NTP, a resumed VM): the peer still has two failures left.
    vi.setSystemTime(Date.UTC(2026, 0, 1, 11));
    expect(() => throttle.failed('10.0.0.1')).not.toThrow();
  });

  it('names a peer by its IPv4 address or its IPv6 /64, never by a header', () => {
    expect(peer('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(peer('192.168.1.9')).toBe('192.168.1.9');
    expect(peer('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(peer('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(peer('::1')).toBe('0:0:0:0::/64');
  });
});
