import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { startPostgresRelay } from '../testing/cuttable-relay.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const pgSkip = await postgresSkipReason();
if (pgSkip) console.warn(`[airlock tests] skipping the scrape of a store that is down: ${pgSkip}`);

/** Lines of a scrape that hold a sample of `name` (with or without labels). */
function samples(text: string, name: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe.skipIf(pgSkip !== null)('a scrape while PostgreSQL does not answer', () => {
  let airlock: Airlock;
  let relay: Awaited<ReturnType<typeof startPostgresRelay>>;
  let member: string;

  beforeAll(async () => {
    relay = await startPostgresRelay(await freshPostgresDatabase());
    airlock = await startAirlock({
      databaseUrl: relay.url,
      metricsListen: { host: '127.0.0.1', port: 0 },
      rateLimit: null,
      authFailureLimit: null,
    });
    member = (await workspaceWithTokens(airlock.store, 'scrape')).tokens.member;
  }, 60_000);
  afterAll(async () => {
    await airlock?.close();
    await relay?.cut();
  });

  it('still serves what the kernel counted, leaves out the gauges read from the store, and refuses the main port with 503', async () => {
    const scrape = async () => {
      const response = await fetch(airlock.metricsListener!.url);
      return { status: response.status, text: await response.text() };
    };
    const up = await scrape();
    expect(up.status).toBe(200);
    expect(samples(up.text, 'airlock_notifications_pending')).toEqual([
      'airlock_notifications_pending 0',
    ]);

    await relay.cut();
    try {
      // The kernel's own port checks the member token in the store: a 503 to retry, not a 500.
      const main = await fetch(`${airlock.url}/metrics`, {
        headers: { authorization: `Bearer ${member}` },
      });
      expect(main.status).toBe(503);
      expect(main.headers.get('retry-after')).toBe('5');
      expect(((await main.json()) as { error: { code: string } }).error.code).toBe(
        'store_unavailable',
      );

      const down = await scrape();
      expect(down.status).toBe(200);
      // The error the main port answered is counted, and shown while the store is down.
      expect(samples(down.text, 'airlock_errors_total')).toContain(
        'airlock_errors_total{code="store_unavailable"} 1',
      );
      expect(samples(down.text, 'airlock_feed_subscribers')).toHaveLength(2);
      // Absent rather than a stale or made-up 0: an alert on the backlog sees no data, not "none".
      expect(samples(down.text, 'airlock_notifications_pending')).toEqual([]);
      expect(down.text).not.toContain('airlock_parks_waiting');
    } finally {
      await relay.restore();
    }
    const back = await scrape();
    expect(samples(back.text, 'airlock_notifications_pending')).toEqual([
      'airlock_notifications_pending 0',
    ]);
  }, 60_000);
});
