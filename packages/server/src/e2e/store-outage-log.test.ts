import { describe, expect, it } from 'vitest';
import { startAirlock } from '../airlock.js';
import { parseNotificationsConfig } from '../notifications/config.js';
import { startPostgresRelay } from '../testing/cuttable-relay.js';
import { waitFor } from '../testing/harness.js';
import { capturedLogger } from '../testing/log-lines.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';

const pgSkip = await postgresSkipReason();
if (pgSkip) console.warn(`[airlock tests] skipping the log of a store outage: ${pgSkip}`);

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

describe.skipIf(pgSkip !== null)('the log while PostgreSQL does not answer', () => {
  it('has one line for each background loop that fails, not one per pass, and a line when it recovers', async () => {
    const { logger, lines } = capturedLogger();
    const relay = await startPostgresRelay(await freshPostgresDatabase());
    const airlock = await startAirlock({
      databaseUrl: relay.url,
      logger,
      // Twenty clock sweeps and twenty notification passes a second.
      sweepIntervalMs: 50,
      notifications: parseNotificationsConfig({
        channels: [
          { name: 'hook', kind: 'webhook', workspace: 'ws_x', url: 'https://x', secrets: [SECRET] },
        ],
      }),
      notificationTuning: { pollMs: 50 },
    });
    const said = (msg: string) => lines.filter((line) => line.msg === msg).length;
    try {
      await relay.cut();
      await waitFor(
        async () => said('clock sweep failed') === 1 && said('notification pass failed') === 1,
        { what: 'the first failure of each loop logged' },
      );
      // Another second of failing passes (about forty) adds no line.
      await new Promise((settle) => setTimeout(settle, 1000));
      expect(said('clock sweep failed')).toBe(1);
      expect(said('notification pass failed')).toBe(1);
      expect(lines.filter((line) => line.msg.endsWith('still failing'))).toEqual([]);
      await relay.restore();
      await waitFor(
        async () =>
          said('clock sweep recovered') === 1 && said('notification pass recovered') === 1,
        { timeoutMs: 20_000, what: 'the recovery of each loop logged' },
      );
      expect(lines.find((line) => line.msg === 'clock sweep recovered')).toMatchObject({
        level: 30,
      });
    } finally {
      await airlock.close();
      await relay.cut();
    }
  }, 60_000);
});
