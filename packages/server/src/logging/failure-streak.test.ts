import { describe, expect, it } from 'vitest';
import { capturedLogger } from '../testing/log-lines.js';
import { FailureStreak } from './failure-streak.js';

describe('a streak of failures of a background loop', () => {
  it('logs the first failure with its error, one reminder a minute with the count, and the recovery', () => {
    const { logger, lines } = capturedLogger('debug');
    let now = 0;
    const streak = new FailureStreak(logger, 'clock sweep', { now: () => now });
    // Four passes a second for a minute and a half, all failing.
    for (; now <= 90_000; now += 250) streak.failed(new Error('connect ECONNREFUSED'));
    expect(lines.map((line) => line.msg)).toEqual([
      'clock sweep failed',
      'clock sweep still failing',
    ]);
    expect(lines[0]).toMatchObject({ level: 50, err: { message: 'connect ECONNREFUSED' } });
    expect(typeof (lines[0]!.err as { stack?: unknown }).stack).toBe('string');
    // The reminder came at 60 s: 240 failures after the first, 241 in all.
    expect(lines[1]).toMatchObject({ level: 50, failures: 241, since_last_log: 240 });
    streak.succeeded();
    expect(lines[2]).toMatchObject({ level: 30, msg: 'clock sweep recovered', failures: 361 });
    // A pass that works outside a streak logs nothing; the next failure starts a new streak.
    streak.succeeded();
    streak.failed(new Error('again'));
    expect(lines.slice(3).map((line) => line.msg)).toEqual(['clock sweep failed']);
  });

  it('keeps the fields it is given on its lines', () => {
    const { logger, lines } = capturedLogger('debug');
    const streak = new FailureStreak(logger, 'notification pass', { reminderMs: 0 });
    streak.failed(new Error('one'), { channel: 'hook' });
    streak.failed(new Error('two'), { channel: 'hook' });
    expect(lines).toMatchObject([
      { channel: 'hook', msg: 'notification pass failed', err: { message: 'one' } },
      {
        channel: 'hook',
        msg: 'notification pass still failing',
        err: { message: 'two' },
        failures: 2,
      },
    ]);
  });

  it('reminds a minute after a clock set back, not once the clock caught up with its last line', () => {
    const { logger, lines } = capturedLogger('debug');
    let now = 400 * 24 * 60 * 60 * 1000;
    const streak = new FailureStreak(logger, 'clock sweep', { now: () => now });
    streak.failed(new Error('connect ECONNREFUSED'));
    // NTP puts right a clock that ran a year ahead; the store stays down.
    now = 0;
    for (; now <= 90_000; now += 250) streak.failed(new Error('connect ECONNREFUSED'));
    expect(lines.map((line) => line.msg)).toEqual([
      'clock sweep failed',
      'clock sweep still failing',
      'clock sweep still failing',
    ]);
  });
});
