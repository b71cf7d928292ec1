import { sql } from 'kysely';
import type { Store } from './store.js';

/** Advisory lock key of retention passes on PostgreSQL (the first start's is 4_820_001). */
const RETENTION_PASS_LOCK = 4_820_002;

/** A retention pass's hold on the right to prune. */
export interface PruningLease {
  /**
   * Checks that the hold is still there, before a batch is exported.
   * @throws Error when it was lost (the connection holding the lock broke).
   */
  confirm(): Promise<void>;
}

/**
 * Runs one retention pass while no other kernel process runs one on the
 * same database, or answers `{held: false}` at once when another does. On
 * PostgreSQL the hold is a session advisory lock on a connection kept for
 * the pass (a killed process's lock goes with its connection); on SQLite,
 * where one process owns the store, the pass always runs. Deletes commit
 * before the lock is released, so a pass that follows never reads (nor
 * exports) a row the last one pruned.
 */
export async function withPruningLease<T>(
  store: Store,
  pass: (lease: PruningLease) => Promise<T>,
): Promise<{ held: true; value: T } | { held: false }> {
  if (store.dialect !== 'postgres') {
    return { held: true, value: await pass({ confirm: async () => {} }) };
  }
  return store.db.connection().execute(async (connection) => {
    const taken = await sql<{
      taken: boolean;
    }>`select pg_try_advisory_lock(${RETENTION_PASS_LOCK}) as taken`.execute(connection);
    if (taken.rows[0]?.taken !== true) return { held: false as const };
    try {
      const lease: PruningLease = {
        async confirm() {
          // The lock lives as long as this session: a session that still answers still holds it.
          await sql`select 1`.execute(connection);
        },
      };
      return { held: true as const, value: await pass(lease) };
    } finally {
      await sql`select pg_advisory_unlock(${RETENTION_PASS_LOCK})`
        .execute(connection)
        .catch(() => {});
    }
  });
}
