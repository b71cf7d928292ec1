import { describe, expect, it } from 'vitest';
import { settingErrorOf } from './fixtures/setting-error-of.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, readRequestTimeout } from './request-timeout.js';

describe('readRequestTimeout', () => {
  it('reads a duration with its unit, from 100ms to 1h', () => {
    for (const [text, ms] of [
      ['5s', 5000],
      ['500ms', 500],
      ['1.5s', 1500],
      ['2m', 120_000],
      ['100ms', 100],
      ['1h', 3_600_000],
    ] as const) {
      expect(readRequestTimeout(text, {})).toEqual({ timeoutMs: ms, source: '--timeout' });
    }
  });

  it('takes --timeout over AIRLOCK_TIMEOUT, and 30s when neither says', () => {
    const env = { AIRLOCK_TIMEOUT: '1500ms' };
    expect(readRequestTimeout('2s', env)).toEqual({ timeoutMs: 2000, source: '--timeout' });
    expect(readRequestTimeout(undefined, env)).toEqual({
      timeoutMs: 1500,
      source: 'AIRLOCK_TIMEOUT',
    });
    expect(readRequestTimeout(undefined, {})).toEqual({ timeoutMs: 30_000, source: 'default' });
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(30_000);
  });

  it('counts an empty or blank AIRLOCK_TIMEOUT as unset, but not an empty --timeout', () => {
    for (const blank of ['', '  ']) {
      expect(readRequestTimeout(undefined, { AIRLOCK_TIMEOUT: blank }).source).toBe('default');
    }
    expect(settingErrorOf(() => readRequestTimeout('', {})).message).toBe(
      '--timeout wants a duration such as 24h, 30m, 90s or 500ms, not ""',
    );
  });

  it.each([
    [
      '10',
      '--timeout wants a duration such as 24h, 30m, 90s or 500ms, not "10" (a number needs its unit: 10s? 10ms?)',
    ],
    ['soon', '--timeout wants a duration such as 24h, 30m, 90s or 500ms, not "soon"'],
    ['-1s', '--timeout wants a duration such as 24h, 30m, 90s or 500ms, not "-1s"'],
    ['0s', '--timeout must be between 100ms and 1h, not "0s"'],
    ['50ms', '--timeout must be between 100ms and 1h, not "50ms"'],
    ['2h', '--timeout must be between 100ms and 1h, not "2h"'],
  ])('refuses --timeout %j as invalid_timeout naming the flag', (given, message) => {
    const error = settingErrorOf(() => readRequestTimeout(given, { AIRLOCK_TIMEOUT: '5s' }));
    expect(error.code).toBe('invalid_timeout');
    expect(error.source).toBe('--timeout');
    expect(error.message).toBe(message);
  });

  it('names AIRLOCK_TIMEOUT when the bad value came from it', () => {
    const error = settingErrorOf(() => readRequestTimeout(undefined, { AIRLOCK_TIMEOUT: '30' }));
    expect(error.code).toBe('invalid_timeout');
    expect(error.source).toBe('AIRLOCK_TIMEOUT');
    expect(error.message).toBe(
      'AIRLOCK_TIMEOUT wants a duration such as 24h, 30m, 90s or 500ms, not "30" (a number needs its unit: 30s? 30ms?)',
    );
  });
});
