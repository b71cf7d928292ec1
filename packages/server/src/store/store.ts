import type { Kysely, Transaction } from 'kysely';
import type {
  AdvisoryLockHold,
  CommitListener,
  CommitObserver,
  OpenedBackend,
  StoreLocation,
  UnitOfWork,
} from './backend.js';
import { backendFor } from './backends.js';
import type { Dialect } from './dialect.js';
import { type Durability, parseDurability } from './durability.js';
import type { PendingEvent, StoredEvent } from './event-log.js';
import { holdsAirlockStore, migrateToLatest } from './migrations.js';
import { type PendingUpgrade, readPendingUpgrade } from './pending-upgrade.js';
import type { PreparedQuery } from './prepared.js';
import type { Database } from './schema.js';
import { SQL, type SqlHandle } from './sql-handle.js';
import { asStoreError, NotAnAirlockStoreError, noteOpenBackend } from './store-errors.js';

export type { CommitListener, CommitObserver, StoreLocation } from './backend.js';
export type { PendingEvent, StoredEvent } from './event-log.js';
export { SQLITE_FILE_NAME } from './sqlite/sqlite-backend.js';

/**
 * The handle a unit of work receives: its time, its outgoing events and its
 * commit hooks. Its transaction is reachable by store/ code only (under
 * {@link SQL}): the kernel reads and writes through the repositories.
 */
export interface Tx {
  readonly [SQL]: SqlHandle<Transaction<Database>>;
  now: number;
  /** Appends an event; it is written with the transaction, in order. */
  emit(event: PendingEvent): void;
  /** Runs a callback after the transaction commits (never when it rolls back). */
  afterCommit(callback: () => void): void;
  /**
   * Queues writes that are made at the end of the unit of work, before its
   * events: `write` is called then, once, and its queries run in order (on
   * PostgreSQL, in the same write as the events and the COMMIT).
   */
  beforeCommit(write: () => PreparedQuery[]): void;
}

/** Work added to the end of every unit of work that emitted events, in its transaction. */
export type UnitEventsHook = (tx: Tx, events: readonly PendingEvent[]) => Promise<void>;

/**
 * The durable store: one Kysely query layer over SQLite (WAL) or PostgreSQL,
 * migrations applied at open, and transactions that write their events last.
 */
export class Store {
  /** The query layer, for store/ code (see {@link SQL}). */
  readonly [SQL]: SqlHandle;
  private readonly committedListeners = new Set<(events: StoredEvent[]) => void>();
  private readonly unitEventsHooks = new Set<UnitEventsHook>();
  private closed = false;
  /** Ends asStoreError's asking this store's backend (see noteOpenBackend). */
  private releaseBackend = () => {};

  private constructor(
    private readonly backend: OpenedBackend,
    readonly dialect: Dialect,
    /** When this store's answers may report a change (see {@link Durability}). */
    readonly durability: Durability,
    private readonly clock: () => number,
  ) {
    this[SQL] = { db: backend.db, dialect };
  }

  /** The query layer: for store/ code and tests only (a guard test keeps the rest out). */
  get db(): Kysely<Database> {
    return this.backend.db;
  }

  /** The backend and where its data is, for logs (never with a password). */
  get description(): string {
    return this.backend.description;
  }

  /**
   * The directory holding the data of a store embedded in this process
   * (SQLite), or null when the data lives in a database server (PostgreSQL).
   */
  get dataDir(): string | null {
    return this.backend.dataDir;
  }

  /**
   * The SQLite WAL file and its size on disk in bytes (0 while there is none),
   * or null for PostgreSQL. The size stays at what the WAL last needed, and
   * grows only while checkpoints cannot finish (see Checkpointer).
   */
  walFile(): { path: string; bytes: number } | null {
    return this.backend.walFile();
  }

  /**
   * Opens (and migrates) the store at a location, with the first backend that
   * serves it (see `backends.ts`).
   * With `existing`, a database that holds no Airlock store yet is refused
   * before any migration writes to it (a command pointed at the wrong
   * database leaves it as it was). With `beforeMigrating`, a store that has
   * migrations pending is first handed to it (with the database, on which the
   * pool has opened one session): it throws to leave the store unmigrated.
   * @throws InvalidDurabilityError when `durability` is not a mode.
   * @throws NotAnAirlockStoreError with `existing`, for a database without Airlock's tables.
   * @throws Error when the database cannot be reached or migrated.
   */
  static async open(
    location: StoreLocation,
    clock: () => number = Date.now,
    options: {
      existing?: boolean;
      beforeMigrating?: (upgrade: PendingUpgrade, db: Kysely<unknown>) => Promise<void>;
    } = {},
  ): Promise<Store> {
    const durability = parseDurability(location.durability, 'the durability option');
    const backend = backendFor(location);
    const opened = await backend.open(location, durability);
    try {
      if (
        options.existing &&
        !(await holdsAirlockStore(opened.db as Kysely<unknown>, backend.dialect))
      ) {
        throw new NotAnAirlockStoreError(opened.description);
      }
      if (options.beforeMigrating) {
        const db = opened.db as Kysely<unknown>;
        const upgrade = await readPendingUpgrade(db, backend.dialect);
        if (upgrade.pending.length > 0) await options.beforeMigrating(upgrade, db);
      }
      await migrateToLatest(opened.db as Kysely<unknown>, backend.dialect);
    } catch (error) {
      await opened.close().catch(() => {});
      throw error;
    }
    const store = new Store(opened, backend.dialect, durability, clock);
    store.releaseBackend = noteOpenBackend(backend);
    return store;
  }

  /** The store's current time in epoch milliseconds (injectable for tests). */
  now(): number {
    return this.clock();
  }

  /**
   * Reports each COMMIT's duration and units of work (metrics), the units
   * null where each unit commits alone; null stops reporting.
   */
  observeCommits(observer: CommitObserver | null): void {
    this.backend.observeCommits(observer);
  }

  /** Subscribes to committed events (this process's transactions only). */
  onCommitted(listener: (events: StoredEvent[]) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /**
   * Adds work that runs at the end of each unit of work that emitted events,
   * in the same transaction (the notification outbox enqueues there, so a
   * notice commits or rolls back with its event). Answers its removal.
   */
  onUnitEvents(hook: UnitEventsHook): () => void {
    this.unitEventsHooks.add(hook);
    return () => this.unitEventsHooks.delete(hook);
  }

  /**
   * Runs a unit of work in one transaction, retrying the failures the backend
   * calls retryable (PostgreSQL serialization failures and deadlocks);
   * events emitted inside are sequenced and written last.
   * @throws StoreUnavailableError when the store cannot take the write (disk full, read-only).
   * @throws whatever the unit of work throws (the transaction is rolled back).
   */
  async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const done = await this.backend.commitUnit((trx) => this.unitOfWork(trx, work));
        if (done.written.length > 0) {
          for (const listener of this.committedListeners) listener(done.written);
        }
        for (const callback of done.callbacks) callback();
        return done.value;
      } catch (error) {
        if (attempt < 5 && this.backend.retryable(error)) continue;
        throw asStoreError(error);
      }
    }
  }

  /**
   * Runs `work` during this process's turn at the shared work named by `key`
   * (see `advisory-lock.ts`): processes sharing a PostgreSQL database take
   * turns; a store one process owns runs `work` at once.
   */
  takeTurn<T>(
    options: { key: number; wait: boolean },
    work: (hold: AdvisoryLockHold) => Promise<T>,
  ): Promise<{ held: true; value: T } | { held: false }> {
    return this.backend.takeTurn(options, work);
  }

  /** Runs a unit of work in an open transaction: its writes; its events are returned, unwritten. */
  private async unitOfWork<T>(
    trx: Transaction<Database>,
    work: (tx: Tx) => Promise<T>,
  ): Promise<UnitOfWork<T>> {
    const events: PendingEvent[] = [];
    const callbacks: (() => void)[] = [];
    const finalWrites: (() => PreparedQuery[])[] = [];
    const now = this.clock();
    const tx: Tx = {
      [SQL]: { db: trx, dialect: this.dialect },
      now,
      emit: (event) => events.push(event),
      afterCommit: (callback) => callbacks.push(callback),
      beforeCommit: (write) => finalWrites.push(write),
    };
    const value = await work(tx);
    if (events.length > 0) for (const hook of this.unitEventsHooks) await hook(tx, events);
    const writes = finalWrites.flatMap((write) => write());
    return { value, events, now, callbacks, writes };
  }

  /**
   * Opens the connection that hears every process's commits (PostgreSQL
   * LISTEN/NOTIFY); on SQLite, where one process owns the file, a listener
   * that never hears anything. It starts switched off: `want(true)` issues
   * LISTEN, `want(false)` UNLISTEN, so a process with nobody to tell is not
   * woken for each commit, nor is the database backend that would forward it.
   * Each commit reports its workspace and the last sequence number it took
   * (null from a kernel that sends the workspace alone).
   */
  listen(
    onWorkspace: (workspaceId: string, lastSeq: number | null) => void,
  ): Promise<CommitListener> {
    return this.backend.listen(onWorkspace);
  }

  /** Closes every connection, after the units in flight committed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.backend.close();
    } finally {
      this.releaseBackend();
    }
  }
}
