import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startAirlock } from '../airlock.js';
import { capturedLogger } from '../testing/log-lines.js';
import { storeBeforeMigration } from '../testing/older-schema.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';

const pgSkip = await postgresSkipReason();

/**
 * A kernel starting on a PostgreSQL database another session is connected to (an older
 * kernel, perhaps) migrates it, as a rolling start may want, but says so at warn.
 */
describe.skipIf(pgSkip)('a kernel migrating a shared PostgreSQL database', () => {
  it('warns, naming both migrations, while another session is connected, and says nothing once none is pending', async () => {
    const databaseUrl = await freshPostgresDatabase();
    await storeBeforeMigration({ databaseUrl }, '0017', async () => {});
    const older = new pg.Client({ connectionString: databaseUrl });
    await older.connect();
    const first = capturedLogger('warn');
    try {
      const airlock = await startAirlock({ databaseUrl, port: 0, logger: first.logger });
      await airlock.close();
    } finally {
      await older.end();
    }
    const warned = first.lines.find((line) =>
      line.msg.includes('other session(s) are connected'),
    )?.msg;
    expect(warned).toMatch(/migrating the database from 0016_waiting_page to 0\d{3}_/);

    // Nothing pending now: a second start says nothing of it.
    const second = capturedLogger('warn');
    const again = await startAirlock({ databaseUrl, port: 0, logger: second.logger });
    await again.close();
    expect(second.lines.some((line) => line.msg.includes('other session(s)'))).toBe(false);
  });
});
