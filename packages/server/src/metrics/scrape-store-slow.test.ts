import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { capturedLogger } from '../testing/log-lines.js';
import { freshMigratedPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';

const pgSkip = await postgresSkipReason();
if (pgSkip) console.warn(`[airlock tests] skipping the scrape of a store that stalls: ${pgSkip}`);

/** Lines of a scrape that hold a sample of `name` (with or without labels). */
function samples(text: string, name: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe.skipIf(pgSkip !== null)('a scrape while PostgreSQL answers nothing', () => {
  let airlock: Airlock;
  let locker: pg.Client;
  const { logger, lines } = capturedLogger();

  beforeAll(async () => {
    const databaseUrl = await freshMigratedPostgresDatabase();
    airlock = await startAirlock({
      databaseUrl,
      metricsListen: { host: '127.0.0.1', port: 0 },
      rateLimit: null,
      authFailureLimit: null,
      logger,
    });
    locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
  }, 60_000);
  afterAll(async () => {
    await locker?.query('rollback').catch(() => {});
    await locker?.end().catch(() => {});
    await airlock?.close();
  });

  it('answers with what the kernel counts in memory instead of waiting for the store', async () => {
    // An operator's ALTER TABLE or VACUUM FULL: every read of the parked rows and the outbox waits.
    await locker.query('begin');
    await locker.query('lock table tasks, notification_deliveries in access exclusive mode');
    const scrape = async () => {
      const response = await fetch(airlock.metricsListener!.url, {
        // Prometheus's own default scrape timeout: a scrape that takes longer is no scrape.
        signal: AbortSignal.timeout(10_000),
      });
      return { status: response.status, text: await response.text() };
    };
    // Scrapes that keep coming while the store stalls each answer, and do not pile up queries:
    // one after the first gave up waiting, and two at once (each waits the refresh timeout).
    const first = await scrape();
    for (const stalled of [first, ...(await Promise.all([scrape(), scrape()]))]) {
      expect(stalled.status).toBe(200);
      expect(samples(stalled.text, 'airlock_feed_subscribers')).toHaveLength(2);
      expect(samples(stalled.text, 'airlock_notifications_pending')).toEqual([]);
      expect(stalled.text).not.toContain('airlock_parks_waiting');
    }
    // One error for the outage, not one (with its stack) per scrape.
    const unread = (line: { msg: string }) =>
      line.msg.startsWith('metrics: a gauge could not be read');
    expect(lines.filter(unread)).toHaveLength(1);
    await locker.query('rollback');
    // Once the store answers again, the gauges read from it are back, and the log says so once.
    const back = await scrape();
    expect(samples(back.text, 'airlock_notifications_pending')).toEqual([
      'airlock_notifications_pending 0',
    ]);
    await scrape();
    const again = lines.filter((line) =>
      line.msg.includes('gauges read from the store are read again'),
    );
    expect(again).toEqual([expect.objectContaining({ failed_scrapes: 3 })]);
  }, 60_000);
});
