import type { SelectQueryBuilder } from 'kysely';

/** The SQL backends the store speaks; every dialect branch names one of these. */
export type Dialect = 'sqlite' | 'postgres';

/**
 * What differs between the backends, in one place: repositories ask for a
 * trait instead of naming a backend, so a third backend is one more entry.
 */
export interface DialectTraits {
  /** The column type of a 64-bit integer (epoch milliseconds, sequence numbers). */
  bigInteger: 'integer' | 'bigint';
  /**
   * Whether a unit must lock the rows it reads to change: several processes
   * share a PostgreSQL database, while one process owns a SQLite file and its
   * units run one at a time.
   */
  locksRows: boolean;
}

/** The traits of each backend. */
export const DIALECT_TRAITS: Record<Dialect, DialectTraits> = {
  sqlite: { bigInteger: 'integer', locksRows: false },
  postgres: { bigInteger: 'bigint', locksRows: true },
};

/** A read of rows this unit will change, locked until its commit where the backend needs it. */
export function lockedForUpdate<QB extends SelectQueryBuilder<never, never, unknown>>(
  dialect: Dialect,
  query: QB,
): QB {
  return DIALECT_TRAITS[dialect].locksRows ? (query.forUpdate() as QB) : query;
}

/**
 * A read of rows to claim: locked where the backend needs it, skipping rows
 * another process holds (it claims those), so claimers never wait on each other.
 */
export function claimedForUpdate<QB extends SelectQueryBuilder<never, never, unknown>>(
  dialect: Dialect,
  query: QB,
): QB {
  return DIALECT_TRAITS[dialect].locksRows ? (query.forUpdate().skipLocked() as QB) : query;
}
