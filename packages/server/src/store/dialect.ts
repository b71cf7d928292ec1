import type { RawBuilder, SelectQueryBuilder } from 'kysely';
import { POSTGRES_TRAITS } from './postgres/postgres-traits.js';
import { SQLITE_TRAITS } from './sqlite/sqlite-traits.js';

/**
 * What differs between the backends for the store's shared code (the
 * migrations and repositories): they ask for a trait instead of naming a
 * backend. Each backend states its traits in its own folder.
 */
export interface DialectTraits {
  /** The column type of a 64-bit integer (epoch milliseconds, sequence numbers). */
  bigInteger: 'integer' | 'bigint';
  /**
   * Whether several kernel processes may share the store. They do on
   * PostgreSQL: a unit locks the rows it reads to change, and processes take
   * turns at shared work under advisory locks. One process owns a SQLite
   * file, and its units run one at a time.
   */
  sharedByProcesses: boolean;
  /** The text of a top-level key of a JSON text column, as SQL (null when the key is absent). */
  jsonTextAt(column: string, key: string): RawBuilder<string | null>;
  /**
   * A query answering `identity`, text naming the database the store is open
   * on that a copy of it (a restore into a new database) does not share;
   * null where copies are not told apart (store-identity.ts).
   */
  identityQuery: string | null;
  /**
   * Queries naming the server (cluster) a database lives on, beside its
   * identity: `available` answers whether `read` may run (a server may
   * refuse the function it calls), `read` answers `cluster`; null where
   * there is none (store-identity.ts).
   */
  clusterQuery: { available: string; read: string } | null;
  /**
   * How a test reads the engine's plan of a statement (store/query-plan.ts):
   * the command put before it, the column of each plan line, and a setting
   * turned off while planning so a table of a test's few rows is not scanned
   * where an index serves (null where the engine needs none).
   */
  queryPlan: { explain: string; lineColumn: string; scanSetting: string | null };
  /**
   * Where the store's tables live, for an engine with several schemas per
   * database (store-schema.ts): `current` answers `schema` (null when the
   * search_path names none that exists) and `search_path`; `tables` lists a
   * schema's tables as `name`. Null where the database is one schema.
   */
  schemaQueries: {
    current: string;
    tables: (schema: string) => RawBuilder<{ name: string }>;
  } | null;
}

/** The traits of each backend, by the name of its SQL dialect. */
export const DIALECT_TRAITS = {
  sqlite: SQLITE_TRAITS,
  postgres: POSTGRES_TRAITS,
} as const satisfies Record<string, DialectTraits>;

/** The SQL backends the store speaks; every dialect branch names one of these. */
export type Dialect = keyof typeof DIALECT_TRAITS;

/** A read of rows this unit will change, locked until its commit where the backend needs it. */
export function lockedForUpdate<QB extends SelectQueryBuilder<never, never, unknown>>(
  dialect: Dialect,
  query: QB,
): QB {
  return DIALECT_TRAITS[dialect].sharedByProcesses ? (query.forUpdate() as QB) : query;
}

/**
 * A read of rows to claim: locked where the backend needs it, skipping rows
 * another process holds (it claims those), so claimers never wait on each other.
 */
export function claimedForUpdate<QB extends SelectQueryBuilder<never, never, unknown>>(
  dialect: Dialect,
  query: QB,
): QB {
  return DIALECT_TRAITS[dialect].sharedByProcesses ? (query.forUpdate().skipLocked() as QB) : query;
}
