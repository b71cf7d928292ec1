import { sql } from 'kysely';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';

/**
 * Runs `work` while holding a PostgreSQL advisory lock of this key, so that
 * processes sharing the database take turns (the lock is held on one pooled
 * connection for the whole of `work`, and released even when it throws). On
 * SQLite, whose file one kernel process serves, `work` simply runs.
 * @throws whatever `work` throws.
 */
export async function withAdvisoryLock<T>(
  store: Store,
  key: number,
  work: () => Promise<T>,
): Promise<T> {
  const { db, dialect } = store[SQL];
  if (dialect !== 'postgres') return work();
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${key})`.execute(connection);
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(connection);
    }
  });
}
