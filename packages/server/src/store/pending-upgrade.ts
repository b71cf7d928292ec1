import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Dialect } from './dialect.js';
import { StaticMigrations } from './migrations.js';
import { readStoreSchema } from './store-schema.js';

/** Where a store's schema stands against this build, read before anything is applied. */
export interface PendingUpgrade {
  /** The last migration the store applied (null for none). */
  applied: string | null;
  /** The newest migration this build knows. */
  newest: string;
  /** What this build would apply, in order (never empty where this is handed on). */
  pending: readonly string[];
}

/** Reads, changing nothing, which of this build's migrations the store has applied. */
export async function readPendingUpgrade(
  db: Kysely<unknown>,
  dialect: Dialect,
): Promise<PendingUpgrade> {
  const names = Object.keys(await new StaticMigrations(dialect).getMigrations()).sort();
  // A new database has no history yet: every migration is pending.
  const { tables } = await readStoreSchema(db, dialect);
  const { rows } = tables.has('airlock_migrations')
    ? await sql<{ name: string }>`select name from airlock_migrations`.execute(db)
    : { rows: [] };
  const done = new Set(rows.map((row) => row.name));
  const applied = names.filter((name) => done.has(name)).at(-1) ?? null;
  return { applied, newest: names.at(-1)!, pending: names.filter((name) => !done.has(name)) };
}

/**
 * A local command (`airlock token`, `airlock fence`) found the store older
 * than itself while a kernel may serve it: migrating the schema under that
 * kernel would break its reads, so nothing was applied. `code` is stable.
 */
export class OlderStoreServedError extends Error {
  readonly code = 'kernel_running';
  constructor(
    readonly upgrade: PendingUpgrade,
    /** Who serves it, in words: "a kernel (pid 12) serves /srv/airlock". */
    readonly server: string,
  ) {
    super(
      `the store is at migration ${upgrade.applied ?? '(none)'} and this airlock is newer ` +
        `(${upgrade.newest}); stop the kernel and start the new version first, or run the ` +
        `command with the version the kernel runs (${server}); nothing was changed`,
    );
    this.name = 'OlderStoreServedError';
  }
}

/**
 * How many sessions other than this one are connected to the PostgreSQL
 * database. A kernel keeps one open for as long as it serves (the session
 * that LISTENs for other kernels' commits), whatever its version, and an
 * older kernel cannot be told from `psql` by what it shows to another role:
 * any other session counts. Call it before the pool has opened a second one.
 */
export async function otherPostgresSessions(db: Kysely<unknown>): Promise<number> {
  const { rows } = await sql.raw<{ n: number | string }>(OTHER_SESSIONS_QUERY).execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** Counts the client sessions on the current database other than the one asking, as `n`. */
export const OTHER_SESSIONS_QUERY = `select count(*) as n from pg_stat_activity
  where datname = current_database() and pid <> pg_backend_pid()
    and backend_type = 'client backend'`;

/**
 * What a kernel starting on PostgreSQL does before it migrates the database: with other
 * sessions connected (older kernels, perhaps, whose reads a migration can break until their
 * connections are replaced), it says so at warn, naming both migrations, and goes on. Unlike
 * a local command it does not refuse: a rolling start is the operator's call.
 */
export function warnOfOtherSessions(
  logger: Logger,
): (upgrade: PendingUpgrade, db: Kysely<unknown>) => Promise<void> {
  return async (upgrade, db) => {
    // A role that cannot read pg_stat_activity still starts: the warning is advice, not a gate.
    const others = await otherPostgresSessions(db).catch(() => 0);
    if (others === 0) return;
    logger.warn(
      { applied: upgrade.applied, newest: upgrade.newest, other_sessions: others },
      `migrating the database from ${upgrade.applied ?? '(none)'} to ${upgrade.newest} while ${others} other session(s) are connected: a kernel of the older version still serving it may fail its reads until it is stopped; stop old kernels before a new one starts`,
    );
  };
}
