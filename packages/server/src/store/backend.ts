import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from './dialect.js';
import type { Durability } from './durability.js';
import type { PendingEvent, StoredEvent } from './event-log.js';
import type { PreparedQuery } from './prepared.js';
import type { Database } from './schema.js';

/**
 * The seam between the store and a SQL backend. Everything that differs
 * between SQLite and PostgreSQL beyond the SQL itself (how a connection is
 * opened, how a unit of work commits, how events get their sequence
 * numbers, which driver errors mean "unavailable", how processes take
 * turns) lives in the backend's folder (`store/sqlite/`, `store/postgres/`)
 * behind these interfaces; `store/backends.ts` lists the backends and
 * `store/dialect.ts` their traits. `store.ts` speaks to a backend only
 * through them.
 */

/** Where a store keeps its data (a SQLite data directory or a PostgreSQL URL), and how durably. */
export interface StoreLocation {
  /** PostgreSQL connection URL; when set, `dataDir` is ignored. */
  databaseUrl?: string | undefined;
  /** SQLite data directory (created when missing); default `./.airlock`. */
  dataDir?: string | undefined;
  /** Largest PostgreSQL pool; default 10. */
  poolSize?: number | undefined;
  /** When an answer may report a change: `full` (default, power-loss safe) or `relaxed`. */
  durability?: Durability | undefined;
}

/**
 * Receives a COMMIT's duration in seconds and the number of units of work it
 * carried; `null` units from a backend that commits each unit alone.
 */
export type CommitObserver = (seconds: number, units: number | null) => void;

/** The connection that hears other processes' commits; see `Store.listen`. */
export interface CommitListener {
  /** Switches listening on or off; resolves once the database has done it. */
  want(on: boolean): Promise<void>;
  close(): Promise<void>;
}

/** A unit of work that ran in an open transaction: its value, and what is still to write. */
export interface UnitOfWork<T> {
  value: T;
  /** Queries to run after the unit's own, before its events (see `Tx.beforeCommit`). */
  writes: PreparedQuery[];
  /** Its events, unsequenced: the backend numbers and appends them last. */
  events: PendingEvent[];
  now: number;
  callbacks: (() => void)[];
}

/** What a committed unit of work hands back: its value, its events as stored, its callbacks. */
export interface Done<T> {
  value: T;
  written: StoredEvent[];
  callbacks: (() => void)[];
}

/** A holder's grip on a turn at shared work while its work runs (see `withAdvisoryLock`). */
export interface AdvisoryLockHold {
  /**
   * Checks that the turn is still held (the session that took it still
   * answers); always true on a store one process owns.
   * @throws Error when the connection holding the turn broke (the turn went with it).
   */
  confirm(): Promise<void>;
}

/** An open connection to a backend, as the store uses it. */
export interface OpenedBackend {
  /** The query layer (Kysely over the backend's driver). */
  readonly db: Kysely<Database>;
  /** A line naming the backend and where it is, never with a password. */
  readonly description: string;
  /**
   * The directory whose files hold the data when the store is embedded in
   * this process (SQLite), or null for a database server (PostgreSQL).
   */
  readonly dataDir: string | null;
  /**
   * The SQLite WAL file and its size on disk in bytes (0 while there is
   * none), or null for a database server (PostgreSQL).
   */
  walFile(): { path: string; bytes: number } | null;
  /**
   * Opens a transaction, runs `unit` in it, runs the writes it left and
   * appends its events (numbered per workspace, in commit order), commits,
   * and resolves only once the COMMIT returned.
   * @throws whatever the unit throws, or the driver's error (the transaction is rolled back).
   */
  commitUnit<T>(unit: (trx: Transaction<Database>) => Promise<UnitOfWork<T>>): Promise<Done<T>>;
  /** Whether a failed unit of work may simply run again (a serialization failure, a deadlock). */
  retryable(error: unknown): boolean;
  /** Reports each COMMIT's duration and units of work; null stops reporting. */
  observeCommits(observer: CommitObserver | null): void;
  /**
   * Opens the connection that hears every process's commits, switched off
   * (see `Store.listen`); a store one process owns answers one that never hears.
   */
  listen(
    onWorkspace: (workspaceId: string, lastSeq: number | null) => void,
  ): Promise<CommitListener>;
  /**
   * Runs `work` during this process's turn at the shared work named by
   * `key`, so that processes sharing the store take turns; with `wait`
   * false, answers `{held: false}` at once when another process has the turn.
   */
  takeTurn<T>(
    options: { key: number; wait: boolean },
    work: (hold: AdvisoryLockHold) => Promise<T>,
  ): Promise<{ held: true; value: T } | { held: false }>;
  /** Finishes what is in flight and closes every connection. */
  close(): Promise<void>;
}

/** A SQL backend the store can open. */
export interface StoreBackend {
  readonly dialect: Dialect;
  /** Whether this backend serves a location (the first one that does opens it). */
  serves(location: StoreLocation): boolean;
  /**
   * Opens (without migrating) the backend at a location.
   * @throws Error when the database cannot be reached.
   */
  open(location: StoreLocation, durability: Durability): Promise<OpenedBackend>;
  /**
   * Why a driver error means the store cannot take a write now (disk full,
   * read-only, unreachable), in a few words; null when it means something else.
   */
  unavailableReason(error: Error & { code?: unknown }): string | null;
  /**
   * Why a driver error means the store cannot keep text it was given
   * (PostgreSQL refuses U+0000 in text, and an index entry past about
   * 2.7 kB), in a few words; null when it means something else.
   */
  refusedTextReason(error: Error & { code?: unknown }): string | null;
}
