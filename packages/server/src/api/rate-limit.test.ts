import { describe, expect, it } from 'vitest';
import type { Principal } from '../store/accounts.js';
import { RateLimitedError, RateLimiter } from './rate-limit.js';

const member: Principal = {
  credential_id: 'cred_m',
  kind: 'member',
  workspace_id: 'ws',
  agent_application_id: null,
  role: 'approver',
};

describe('the per-credential rate limiter', () => {
  it('lets a burst through, refuses the next with the seconds to wait, and refills over time', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, () => now);
    for (let i = 0; i < 3; i++) limiter.take(member);
    let refused: unknown;
    try {
      limiter.take(member);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterSeconds).toBe(1);
    expect((refused as RateLimitedError).status).toBe(429);
    now = 500;
    expect(() => limiter.take(member)).not.toThrow();
    expect(() => limiter.take(member)).toThrow(RateLimitedError);
  });

  it('refills nothing, and takes nothing away, when its clock steps back', () => {
    // A wall clock set back an hour (NTP, a VM resumed) must not owe the credential an hour.
    let now = 3_600_000;
    const limiter = new RateLimiter({ perSecond: 100, burst: 5 }, () => now);
    limiter.take(member);
    now = 0;
    for (let i = 0; i < 4; i++) limiter.take(member);
    expect(() => limiter.take(member)).toThrow(RateLimitedError);
    now = 10;
    expect(() => limiter.take(member)).not.toThrow();
  });

  it('never limits an executor credential', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, () => 0);
    const executor: Principal = { ...member, credential_id: 'cred_e', kind: 'executor' };
    for (let i = 0; i < 10; i++) limiter.take(executor);
  });

  it('refuses a limit that could never admit a request', () => {
    expect(() => new RateLimiter({ perSecond: 0, burst: 5 })).toThrow();
    expect(() => new RateLimiter({ perSecond: 1, burst: 0 })).toThrow();
  });
});
