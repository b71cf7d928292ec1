import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSince } from './audit.js';
import { UsageError } from './connection.js';

/**
 * What parseSince reads of each text in a process whose time zone is America/New_York, far from
 * UTC, so that a date read as UTC and one read as local time differ (a worker's TZ cannot be
 * changed reliably once a test file before it read the clock).
 */
function readInNewYork(texts: string[]): number[] {
  const source = fileURLToPath(new URL('./audit.ts', import.meta.url));
  const script = `import(${JSON.stringify(source)}).then((m) => console.log(JSON.stringify(${JSON.stringify(texts)}.map((t) => m.parseSince(t)))))`;
  const out = execFileSync(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script],
    { env: { ...process.env, TZ: 'America/New_York' }, encoding: 'utf8' },
  );
  return JSON.parse(out) as number[];
}

/**
 * `airlock audit export --since` reads ISO dates and times only, one time zone rule for all of
 * them: a typo is refused, never read as a day of 2001 that exports the whole trail.
 */
describe('airlock audit export --since', () => {
  it('refuses what is not an ISO date or time, and days the calendar lacks', () => {
    for (const text of [
      'foo 5',
      'March 5',
      '12/5',
      '2026',
      '2026-11',
      '2026-02-30',
      '2026-13-01',
      '2026-11-30T24:00',
      '2026-11-30T12:60Z',
      '2026-11-30T12:00+25:00',
      '2026-11-30Z',
    ]) {
      expect(() => parseSince(text), text).toThrow(UsageError);
      expect(() => parseSince(text), text).toThrow(/--since wants an ISO time or an age/);
    }
  });

  // An age out of bounds came back from parseDuration as a plain Error: exit 1, no flag named.
  it('refuses an age of nothing or past any date as a usage error naming --since', () => {
    for (const text of ['0s', '0d', '0.0001ms', '99999999999d']) {
      expect(() => parseSince(text), text).toThrow(UsageError);
      expect(() => parseSince(text), text).toThrow(
        `--since must be between 1ms and 9007199254740991ms, not "${text}"`,
      );
    }
  });

  it('reads a date or time with no offset as local time, and one with an offset as that instant', () => {
    const cases: [string, number][] = [
      ['2026-11-30', Date.UTC(2026, 10, 30, 5)],
      ['2026-11-30T12:00', Date.UTC(2026, 10, 30, 17)],
      ['2026-11-30 12:00:30.5', Date.UTC(2026, 10, 30, 17, 0, 30, 500)],
      ['2026-11-30T12:00:00Z', Date.UTC(2026, 10, 30, 12)],
      ['2026-11-30t12:00:00z', Date.UTC(2026, 10, 30, 12)],
      ['2026-11-30T12:00:00+01:00', Date.UTC(2026, 10, 30, 11)],
      ['2026-11-30T12:00-0530', Date.UTC(2026, 10, 30, 17, 30)],
      ['2024-02-29T00:00Z', Date.UTC(2024, 1, 29)],
    ];
    expect(readInNewYork(cases.map(([text]) => text))).toEqual(cases.map(([, at]) => at));
    expect(parseSince('2026-11-30')).toBe(new Date(2026, 10, 30).getTime());
    expect(parseSince('24h', 100_000_000)).toBe(100_000_000 - 86_400_000);
  });
});
