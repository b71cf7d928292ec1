import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { SQLITE_FILE_NAME } from '../store/store.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';

const pgSkip = await postgresSkipReason();
if (pgSkip)
  console.warn(`[airlock tests] skipping /readyz on a PostgreSQL that does not answer: ${pgSkip}`);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function probe(airlock: Airlock, path: '/readyz' | '/healthz') {
  const response = await fetch(`${airlock.url}${path}`);
  return { status: response.status, body: await response.json() };
}

describe('GET /readyz, beside GET /healthz', () => {
  it('is ready on a migrated store, and not ready (migrations_pending) when a migration is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-readyz-'));
    dirs.push(dir);
    const airlock = await startAirlock({ dataDir: dir, durability: 'relaxed' });
    const other = new SqliteDatabase(join(dir, SQLITE_FILE_NAME));
    try {
      expect(await probe(airlock, '/readyz')).toEqual({
        status: 200,
        body: { ok: true, ready: true, store: 'sqlite', durability: 'relaxed' },
      });
      // Another process rolled the schema back (say, a restore from an older kernel's backup).
      const last = other
        .prepare('select name, timestamp from airlock_migrations order by name desc limit 1')
        .get() as { name: string; timestamp: string };
      other.prepare('delete from airlock_migrations where name = ?').run(last.name);
      const pending = await probe(airlock, '/readyz');
      expect(pending.status).toBe(503);
      expect(pending.body.error.code).toBe('migrations_pending');
      expect(pending.body.error.detail).toContain(last.name);
      // Liveness is not readiness: the process still serves.
      expect(await probe(airlock, '/healthz')).toEqual({ status: 200, body: { ok: true } });
      other
        .prepare('insert into airlock_migrations (name, timestamp) values (?, ?)')
        .run(last.name, last.timestamp);
      expect((await probe(airlock, '/readyz')).status).toBe(200);
    } finally {
      other.close();
      await airlock.close();
    }
  });

  it.skipIf(pgSkip !== null)(
    'is not ready (store_unavailable) while PostgreSQL does not answer, and ready again after',
    async () => {
      const databaseUrl = await freshPostgresDatabase();
      const airlock = await startAirlock({ databaseUrl });
      const locker = new pg.Client({ connectionString: databaseUrl });
      await locker.connect();
      try {
        expect((await probe(airlock, '/readyz')).body).toMatchObject({ store: 'postgres' });
        // Another session holds the migrations table: the store answers no read of it in time.
        await locker.query('begin');
        await locker.query('lock table airlock_migrations in access exclusive mode');
        const stuck = await probe(airlock, '/readyz');
        expect(stuck.status).toBe(503);
        expect(stuck.body.error.code).toBe('store_unavailable');
        expect((await probe(airlock, '/healthz')).status).toBe(200);
        await locker.query('rollback');
        const ready = await probe(airlock, '/readyz');
        expect(ready.status).toBe(200);
      } finally {
        await locker.end();
        await airlock.close();
      }
    },
    30_000,
  );
});
