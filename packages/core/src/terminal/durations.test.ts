import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './durations.js';

describe('parseDuration', () => {
  it('takes a number with its unit, fractions included', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration(' 2m ')).toBe(120_000);
    expect(parseDuration('24h')).toBe(86_400_000);
    expect(parseDuration('1d')).toBe(86_400_000);
  });

  it('refuses a bare number with a hint at the units, naming where the text came from', () => {
    expect(() => parseDuration('10', '--timeout')).toThrow(
      '--timeout wants a duration such as 24h, 30m, 90s or 500ms, not "10" (a number needs its unit: 10s? 10ms?)',
    );
    expect(() => parseDuration('', 'AIRLOCK_TIMEOUT')).toThrow(
      'AIRLOCK_TIMEOUT wants a duration such as 24h, 30m, 90s or 500ms, not ""',
    );
  });

  it('refuses a value out of bounds, writing the bounds as a flag takes them', () => {
    expect(() => parseDuration('50ms', '--timeout', { min: 100, max: 3_600_000 })).toThrow(
      '--timeout must be between 100ms and 1h, not "50ms"',
    );
  });

  it('reads back what formatDuration writes, for every whole number of milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 * 86_400_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });
});
