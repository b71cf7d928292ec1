import { type Kysely, sql } from 'kysely';
import { DIALECT_TRAITS } from './dialect.js';
import type { Database } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';

/**
 * The PostgreSQL advisory lock keys of the kernel, one per thing its
 * processes take turns at, kept together so that no two share a key.
 */
export const ADVISORY_LOCK_KEYS = {
  /** First starts creating the local workspace (cli/local-workspace.ts). */
  localWorkspace: 4_820_001,
  /** Retention passes (kernel/retention.ts). */
  retentionPass: 4_820_002,
} as const;

/** A holder's grip on an advisory lock while its work runs. */
export interface AdvisoryLockHold {
  /**
   * Checks that the lock is still held (the session that took it still
   * answers); always true on SQLite.
   * @throws Error when the connection holding the lock broke (the lock went with it).
   */
  confirm(): Promise<void>;
}

/** The hold of a process that owns its store alone (SQLite): nobody to take turns with. */
const ALONE: AdvisoryLockHold = { confirm: async () => {} };

/**
 * Takes a session advisory lock on one pooled connection, kept for the whole
 * of `work` (a killed process's lock goes with its connection), and releases
 * it after `work` settles. `wait` blocks until the lock is free; otherwise
 * the answer is `{held: false}` at once when another session holds it.
 */
async function holdAdvisoryLock<T>(
  db: Kysely<Database>,
  options: { key: number; wait: boolean },
  work: (hold: AdvisoryLockHold) => Promise<T>,
): Promise<{ held: true; value: T } | { held: false }> {
  return db.connection().execute(async (connection) => {
    if (options.wait) {
      await sql`select pg_advisory_lock(${options.key})`.execute(connection);
    } else {
      const taken = await sql<{
        taken: boolean;
      }>`select pg_try_advisory_lock(${options.key}) as taken`.execute(connection);
      if (taken.rows[0]?.taken !== true) return { held: false as const };
    }
    const hold: AdvisoryLockHold = {
      async confirm() {
        await sql`select 1`.execute(connection);
      },
    };
    try {
      return { held: true as const, value: await work(hold) };
    } finally {
      // A broken connection has released the lock already.
      await sql`select pg_advisory_unlock(${options.key})`.execute(connection).catch(() => {});
    }
  });
}

/**
 * Runs `work` while holding a PostgreSQL advisory lock of this key, waiting
 * for it, so that processes sharing the database take turns. On SQLite,
 * whose file one kernel process serves, `work` simply runs.
 * @throws whatever `work` throws.
 */
export async function withAdvisoryLock<T>(
  store: Store,
  key: number,
  work: (hold: AdvisoryLockHold) => Promise<T>,
): Promise<T> {
  const { db, dialect } = store[SQL];
  if (!DIALECT_TRAITS[dialect].sharedByProcesses) return work(ALONE);
  const outcome = await holdAdvisoryLock(db, { key, wait: true }, work);
  if (!outcome.held) throw new Error(`advisory lock ${key} was not taken`);
  return outcome.value;
}

/**
 * Runs `work` while holding a PostgreSQL advisory lock of this key, or
 * answers `{held: false}` at once when another session holds it. On SQLite
 * `work` always runs.
 * @throws whatever `work` throws.
 */
export async function tryAdvisoryLock<T>(
  store: Store,
  key: number,
  work: (hold: AdvisoryLockHold) => Promise<T>,
): Promise<{ held: true; value: T } | { held: false }> {
  const { db, dialect } = store[SQL];
  if (!DIALECT_TRAITS[dialect].sharedByProcesses) return { held: true, value: await work(ALONE) };
  return holdAdvisoryLock(db, { key, wait: false }, work);
}
