import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { backends } from '../testing/stores.js';
import { asStoreError, StoreUnavailableError } from './store-errors.js';

const [sqlite, postgres] = await backends();

/** A socket's reset as Node reports it: a client gone, a webhook's server, not the store. */
function socketReset(): Error {
  return Object.assign(new Error('read ECONNRESET'), {
    code: 'ECONNRESET',
    errno: -104,
    syscall: 'read',
  });
}

describe('asStoreError asks the open store', () => {
  it('leaves a socket reset as it was on a SQLite store, and still reads its full disk', async () => {
    const opened = await sqlite!.open();
    try {
      const reset = socketReset();
      expect(asStoreError(reset)).toBe(reset);
      const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      expect(asStoreError(full)).toBeInstanceOf(StoreUnavailableError);
    } finally {
      await opened.dispose();
    }
  });

  it.skipIf(postgres!.skip !== null)(
    'reads a PostgreSQL connection lost mid-query as store_unavailable',
    async () => {
      const opened = await postgres!.open();
      const admin = new pg.Client({ connectionString: opened.location.databaseUrl });
      await admin.connect();
      try {
        const query = sql`select pg_sleep(30) as slept_for_airlock_test`.execute(opened.store.db);
        const failed = query.then(
          () => null,
          (error: unknown) => error,
        );
        // The query runs when the server lists it; its session is then ended under it.
        let ended = 0;
        for (let i = 0; i < 200 && ended === 0; i++) {
          const killed = await admin.query(
            `select pg_terminate_backend(pid) from pg_stat_activity
              where query like '%slept_for_airlock_test%' and pid <> pg_backend_pid()`,
          );
          ended = killed.rowCount ?? 0;
          if (ended === 0) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(ended).toBe(1);
        const error = await failed;
        expect(error).toBeInstanceOf(Error);
        const mapped = asStoreError(error);
        expect(mapped).toBeInstanceOf(StoreUnavailableError);
        expect((mapped as StoreUnavailableError).code).toBe('store_unavailable');
        // A socket reset on a PostgreSQL kernel may be its connection's: still store_unavailable.
        expect(asStoreError(socketReset())).toBeInstanceOf(StoreUnavailableError);
      } finally {
        await admin.end();
        await opened.dispose();
      }
    },
    60_000,
  );
});
