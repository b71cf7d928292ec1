import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { Checkpointer } from './checkpointer.js';
import type { Dialect } from './dialect.js';
import {
  DEFAULT_DURABILITY,
  type Durability,
  parseDurability,
  postgresSynchronousCommit,
  sqliteSynchronous,
} from './durability.js';
import {
  appendSqliteEvents,
  groupEvents,
  type PendingEvent,
  postgresAppend,
  type StoredEvent,
  sequencePostgres,
} from './event-log.js';
import { type CommitObserver, GroupCommit } from './group-commit.js';
import { migrateToLatest } from './migrations.js';
import { namedStatementPool, PostgresSession } from './postgres-session.js';
import { compilePrepared, type PreparedQuery, runPrepared } from './prepared.js';
import type { Database } from './schema.js';
import { SQL, type SqlHandle } from './sql-handle.js';
import { asStoreUnavailable } from './store-unavailable.js';

// PostgreSQL returns bigint as text; every bigint here is a millisecond time or a counter.
pg.types.setTypeParser(20, (value) => Number(value));

/** The connection that hears other processes' commits; see `Store.listen`. */
export interface CommitListener {
  /** Switches listening on or off; resolves once the database has done it. */
  want(on: boolean): Promise<void>;
  close(): Promise<void>;
}

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

export type { PendingEvent, StoredEvent } from './event-log.js';
export type { CommitObserver } from './group-commit.js';

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

const STATEMENT_CACHE_LIMIT = 500;

/** The SQLite file inside a data directory. */
export const SQLITE_FILE_NAME = 'airlock.sqlite';

/**
 * Reuses prepared statements by SQL text: Kysely prepares on every query, and
 * preparing costs more than running most of ours.
 */
function cacheStatements(database: SqliteDatabase.Database): void {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, SqliteDatabase.Statement>();
  database.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      if (cache.size >= STATEMENT_CACHE_LIMIT) cache.clear();
      statement = prepare(source);
      cache.set(source, statement);
    }
    return statement;
  }) as typeof database.prepare;
}

/** A unit of work that ran: its value, and what is still to write before COMMIT. */
interface UnitOfWork<T> {
  value: T;
  writes: PreparedQuery[];
  events: PendingEvent[];
  now: number;
  callbacks: (() => void)[];
}

/** What a committed unit of work hands back: its value, its events as stored, its callbacks. */
interface Done<T> {
  value: T;
  written: StoredEvent[];
  callbacks: (() => void)[];
}

const RETRYABLE_PG_CODES = new Set(['40001', '40P01']);

/**
 * The durable store: one Kysely query layer over SQLite (WAL) or PostgreSQL,
 * migrations applied at open, and transactions that write their events last.
 */
export class Store {
  /** The query layer, for store/ code (see {@link SQL}). */
  readonly [SQL]: SqlHandle;
  private readonly committedListeners = new Set<(events: StoredEvent[]) => void>();
  private readonly unitEventsHooks = new Set<UnitEventsHook>();
  private beforeClose: (() => Promise<void>) | undefined;
  private closed = false;
  /** When this store's answers may report a change (see {@link Durability}). */
  durability: Durability = DEFAULT_DURABILITY;
  /** SQLite only: concurrent units of work share one COMMIT (see GroupCommit). */
  private groupCommit: GroupCommit | undefined;
  /** PostgreSQL only: the pool whose clients hold units of work (see PostgresSession). */
  private pool: pg.Pool | undefined;
  private commitObserver: CommitObserver | null = null;

  private constructor(
    /** The query layer: for store/ code and tests only (a guard test keeps the rest out). */
    readonly db: Kysely<Database>,
    readonly dialect: Dialect,
    readonly description: string,
    private readonly clock: () => number,
    private readonly databaseUrl: string | null = null,
  ) {
    this[SQL] = { db, dialect };
  }

  /**
   * Opens (and migrates) the store at a location.
   * @throws InvalidDurabilityError when `durability` is not a mode.
   * @throws Error when the database cannot be reached or migrated.
   */
  static async open(location: StoreLocation, clock: () => number = Date.now): Promise<Store> {
    const durability = parseDurability(location.durability, 'the durability option');
    if (location.databaseUrl) {
      const pool = new pg.Pool({
        connectionString: location.databaseUrl,
        max: location.poolSize ?? 10,
        // Lets a transaction send BEGIN with its first statement, and its last ones with COMMIT.
        pipeline: true,
      } as pg.PoolConfig);
      // Every session the pool opens says how long a COMMIT waits, whatever the server's default;
      // the client runs this before any query a unit of work sends on it.
      const synchronousCommit = postgresSynchronousCommit(durability);
      // A client the server dropped (a restart, a terminated backend) fails its query, and the
      // pool discards it; unheard, its 'error' event would end the process.
      pool.on('error', () => {});
      pool.on('connect', (client) => {
        client.on('error', () => {});
        client.query(`set synchronous_commit = ${synchronousCommit}`).catch(() => {});
      });
      const db = new Kysely<Database>({
        dialect: new PostgresDialect({ pool: namedStatementPool(pool) }),
      });
      const safeUrl = location.databaseUrl.replace(/\/\/[^@/]*@/, '//***@');
      const store = new Store(db, 'postgres', `postgres ${safeUrl}`, clock, location.databaseUrl);
      store.durability = durability;
      store.pool = pool;
      await migrateToLatest(db as Kysely<unknown>, 'postgres');
      return store;
    }
    const dir = resolve(location.dataDir ?? '.airlock');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, SQLITE_FILE_NAME);
    const database = new SqliteDatabase(file);
    database.pragma('journal_mode = WAL');
    // FULL syncs the WAL in every COMMIT, which GroupCommit shares among a batch's answers.
    database.pragma(`synchronous = ${sqliteSynchronous(durability)}`);
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    // Savepoints (one per unit of work, see GroupCommit) journal in memory, never in a temp file.
    database.pragma('temp_store = MEMORY');
    // Checkpoints run on a worker thread (see Checkpointer), never in a commit.
    database.pragma('wal_autocheckpoint = 0');
    database.pragma('journal_size_limit = 67108864');
    cacheStatements(database);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    const store = new Store(db, 'sqlite', `sqlite ${file}`, clock);
    store.durability = durability;
    await migrateToLatest(db as Kysely<unknown>, 'sqlite');
    store.groupCommit = new GroupCommit(db, database);
    const checkpointer = new Checkpointer(file, () => {
      database.pragma('wal_autocheckpoint = 1000');
    });
    store.beforeClose = async () => {
      await store.groupCommit?.drain();
      await checkpointer.stop();
      database.pragma('wal_checkpoint(TRUNCATE)');
    };
    return store;
  }

  /** The store's current time in epoch milliseconds (injectable for tests). */
  now(): number {
    return this.clock();
  }

  /** Reports each COMMIT's duration and units of work (metrics); null stops reporting. */
  observeCommits(observer: CommitObserver | null): void {
    this.commitObserver = observer;
    if (this.groupCommit) this.groupCommit.observer = observer;
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
   * Runs a unit of work in one transaction, retrying PostgreSQL serialization
   * failures and deadlocks; events emitted inside are sequenced and written last.
   * @throws StoreUnavailableError when the store cannot take the write (disk full, read-only).
   * @throws whatever the unit of work throws (the transaction is rolled back).
   */
  async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const grouped = this.groupCommit;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const done = grouped
          ? await grouped.run(async (trx, sequences) => {
              const unit = await this.unitOfWork(trx, work);
              for (const { key, build, values } of unit.writes) {
                await runPrepared(trx, 'sqlite', key, build, values);
              }
              const written = await appendSqliteEvents(trx, sequences, unit.events, unit.now);
              return { ...unit, written };
            })
          : await this.postgresTransaction(work);
        if (done.written.length > 0) {
          for (const listener of this.committedListeners) listener(done.written);
        }
        for (const callback of done.callbacks) callback();
        return done.value;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (attempt < 5 && typeof code === 'string' && RETRYABLE_PG_CODES.has(code)) continue;
        throw asStoreUnavailable(error);
      }
    }
  }

  /**
   * PostgreSQL: runs a unit of work on one pooled client. BEGIN goes out with
   * the first statement, and the event rows with the COMMIT (see PostgresSession).
   */
  private async postgresTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<Done<T>> {
    const client = await this.pool!.connect();
    const session = PostgresSession.of(client);
    let broken: Error | undefined;
    try {
      session.begin();
      const unit = await this.unitOfWork(session.db, work);
      const groups = groupEvents(unit.events, unit.now);
      const writes = unit.writes.map((query) => compilePrepared('postgres', query));
      const started = this.commitObserver ? performance.now() : 0;
      const returned = await session.commitWith([
        ...writes,
        ...groups.map((group) => postgresAppend(group, unit.now)),
      ]);
      this.commitObserver?.((performance.now() - started) / 1000, 1);
      for (const [i, group] of groups.entries()) {
        sequencePostgres(group, returned[writes.length + i]!);
      }
      const written = groups.length === 1 ? groups[0]!.rows : groups.flatMap((g) => g.rows);
      return { value: unit.value, written, callbacks: unit.callbacks };
    } catch (error) {
      await session.rollback().catch((failure: unknown) => {
        // A client that cannot roll back is not given to the next unit of work.
        broken = failure instanceof Error ? failure : new Error(String(failure));
      });
      throw error;
    } finally {
      client.release(broken);
    }
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
  async listen(
    onWorkspace: (workspaceId: string, lastSeq: number | null) => void,
  ): Promise<CommitListener> {
    if (!this.databaseUrl) return { want: async () => {}, close: async () => {} };
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('error', () => {});
    await client.connect();
    client.on('notification', (message) => {
      if (!message.payload) return;
      const [workspaceId, lastSeq] = message.payload.split(' ');
      const seq = Number(lastSeq);
      onWorkspace(workspaceId!, lastSeq !== undefined && Number.isSafeInteger(seq) ? seq : null);
    });
    let listening = false;
    // The client runs its queries in order, so the last switch asked for is the one that holds.
    let switched: Promise<void> = Promise.resolve();
    return {
      want(on) {
        if (on !== listening) {
          listening = on;
          switched = client
            .query(on ? 'listen airlock_events' : 'unlisten airlock_events')
            .then(() => {});
        }
        return switched;
      },
      async close() {
        await client.end().catch(() => {});
      },
    };
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.beforeClose?.();
    await this.db.destroy();
  }
}
