import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { hideUrlCredentials } from '../../logging/url-credentials.js';
import type {
  AdvisoryLockHold,
  CommitListener,
  CommitObserver,
  Done,
  OpenedBackend,
  StoreBackend,
  UnitOfWork,
} from '../backend.js';
import type { Durability } from '../durability.js';
import { groupEvents } from '../event-log.js';
import { compilePrepared } from '../prepared.js';
import type { Database } from '../schema.js';
import { StoreUnavailableError } from '../store-unavailable.js';
import { postgresAppend, sequencePostgres } from './postgres-event-log.js';
import { namedStatementPool, PostgresSession } from './postgres-session.js';

// PostgreSQL returns bigint as text; every bigint here is a millisecond time or a counter.
pg.types.setTypeParser(20, (value) => Number(value));

/**
 * PostgreSQL's `synchronous_commit` for a durability mode, set on every
 * session the kernel opens: `on` waits for the commit's WAL flush (and a
 * synchronous standby, where one is configured); `off` answers before the flush.
 */
export function postgresSynchronousCommit(mode: Durability): 'on' | 'off' {
  return mode === 'full' ? 'on' : 'off';
}

/** Serialization failures and deadlocks: the unit of work may simply run again. */
const RETRYABLE_CODES = new Set(['40001', '40P01']);

// SQLSTATEs that say the server cannot take a write now: class 08 (connection), 53 (resources:
// disk full, out of memory), 57P01-05 (shut down, cannot connect now, database dropped, idle
// session ended), 25006 (read-only). And those that refuse the pool a new session, as when the
// database is renamed or closed to connections, or the role's login or password changed under
// a running kernel: 3D000 (no such database), 55000 (not accepting connections), 28000 and 28P01.
// And a statement the server gave up on: 55P03 (lock_timeout while another session holds a lock
// it needs) and 57014 (canceled: statement_timeout, or an operator's pg_cancel_backend); the
// kernel sets neither timeout itself, so a database or role setting did, and the same request
// may well pass once the lock is gone. 40001 and 40P01 reach here only once the unit's retries
// are spent (Store.transaction runs it again first): contention the client may retry later.
const UNAVAILABLE_STATES =
  /^(08...|53...|57P0[1-5]|25006|3D000|55000|28000|28P01|42501|55P03|57014|40001|40P01)$/;

// 55000 (object_not_in_prerequisite_state) and 42501 (insufficient_privilege) also name
// statement errors that are bugs to see as such (`currval` before `nextval`, a table the role
// may not write): they are the store going away only when the server refuses the session
// itself (a database closed to connections, its CONNECT privilege revoked), at severity FATAL.
const UNAVAILABLE_WHEN_FATAL = new Set(['55000', '42501']);

/** The words a store_unavailable answer gives for a SQLSTATE, where the code alone says little. */
const UNAVAILABLE_REASONS: Readonly<Record<string, string>> = {
  '53100': 'disk full',
  '25006': 'read-only',
  '3D000': 'database not found: 3D000',
  '55000': 'database not accepting connections: 55000',
  '28000': 'login refused: 28000',
  '28P01': 'password authentication failed: 28P01',
  '42501': 'permission to connect refused: 42501',
  '55P03': 'lock wait timed out (lock_timeout): 55P03',
  '57014': 'statement canceled (statement_timeout or an operator): 57014',
  '40001': 'serialization failures on every attempt: 40001',
  '40P01': 'deadlocks on every attempt: 40P01',
};

// Node's socket errors when the server cannot be reached at all.
const NETWORK_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
]);

/**
 * Whether an error says the connection itself went (a socket error, the
 * server ending the session), rather than that a statement failed.
 */
function connectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string') {
    return NETWORK_UNAVAILABLE.has(code) || /^(08...|57P0[12])$/.test(code);
  }
  return CONNECTION_LOST.test(error.message);
}

/** The pg driver's own words when the connection drops mid-query. */
const CONNECTION_LOST = /^Connection terminated|^Client has encountered a connection error/;

/**
 * Runs a unit of work on one pooled client. BEGIN goes out with the first
 * statement, and the writes it left and its event rows with the COMMIT
 * (see PostgresSession).
 */
async function commitOnSession<T>(
  pool: pg.Pool,
  observe: () => CommitObserver | null,
  unit: (trx: Transaction<Database>) => Promise<UnitOfWork<T>>,
): Promise<Done<T>> {
  const client = await pool.connect();
  const session = PostgresSession.of(client);
  let broken: Error | undefined;
  try {
    session.begin();
    const done = await unit(session.db);
    const groups = groupEvents(done.events, done.now);
    const writes = done.writes.map((query) => compilePrepared('postgres', query));
    const observer = observe();
    const started = observer ? performance.now() : 0;
    const returned = await session
      .commitWith([...writes, ...groups.map((group) => postgresAppend(group, done.now))])
      .catch((error: unknown) => {
        // The COMMIT went out with the unit's last statements: without its answer, nobody knows.
        if (connectionLost(error)) {
          throw new StoreUnavailableError('database connection lost during the commit', {
            maybeChanged: true,
          });
        }
        throw error;
      });
    observer?.((performance.now() - started) / 1000, null);
    for (const [i, group] of groups.entries()) {
      sequencePostgres(group, returned[writes.length + i]!);
    }
    const written = groups.length === 1 ? groups[0]!.rows : groups.flatMap((g) => g.rows);
    return { value: done.value, written, callbacks: done.callbacks };
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

/** The first wait before a lost listening connection is opened again; it doubles up to the cap. */
const RELISTEN_FIRST_MS = 250;
const RELISTEN_CAP_MS = 30_000;

/**
 * Hears every process's commits (LISTEN/NOTIFY on a connection of its own),
 * switched off until `want(true)`, so that a process with nobody to tell is
 * not woken for each commit, nor is the database backend that would forward it.
 * A connection lost (a database restart, a failover, a killed backend) is
 * opened again, with backoff, and listens again if it should: meanwhile the
 * feed's safety poll still finds other processes' commits, only later.
 */
async function listenForCommits(
  databaseUrl: string,
  onWorkspace: (workspaceId: string, lastSeq: number | null) => void,
): Promise<CommitListener> {
  let wanted = false;
  let closed = false;
  let waitMs = RELISTEN_FIRST_MS;
  const hear = (message: pg.Notification) => {
    if (!message.payload) return;
    const [workspaceId, lastSeq] = message.payload.split(' ');
    const seq = Number(lastSeq);
    onWorkspace(workspaceId!, lastSeq !== undefined && Number.isSafeInteger(seq) ? seq : null);
  };
  const open = async (): Promise<pg.Client> => {
    const next = new pg.Client({ connectionString: databaseUrl });
    let lost = false;
    const onLost = () => {
      if (lost || closed) return;
      lost = true;
      void next.end().catch(() => {});
      const timer = setTimeout(() => void reopen(), waitMs);
      timer.unref();
      waitMs = Math.min(RELISTEN_CAP_MS, waitMs * 2);
    };
    next.on('error', onLost);
    next.on('end', onLost);
    next.on('notification', hear);
    try {
      await next.connect();
    } catch (error) {
      // Not connected: the caller tries again (or fails the store's open), not this client's events.
      lost = true;
      throw error;
    }
    return next;
  };
  let client = await open();
  const reopen = async () => {
    if (closed) return;
    let next: pg.Client;
    try {
      next = await open();
    } catch {
      setTimeout(() => void reopen(), waitMs).unref();
      waitMs = Math.min(RELISTEN_CAP_MS, waitMs * 2);
      return;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    waitMs = RELISTEN_FIRST_MS;
    // A connection lost during its LISTEN schedules the next try itself (its 'error' or 'end').
    if (wanted) await next.query('listen airlock_events').catch(() => {});
  };
  // The client runs its queries in order, so the last switch asked for is the one that holds.
  let switched: Promise<void> = Promise.resolve();
  return {
    want(on) {
      if (on !== wanted) {
        wanted = on;
        switched = client
          .query(on ? 'listen airlock_events' : 'unlisten airlock_events')
          .then(() => {});
      }
      return switched;
    },
    async close() {
      closed = true;
      await client.end().catch(() => {});
    },
  };
}

/**
 * The shared store: a PostgreSQL database that several kernel processes use
 * at once. Each unit of work runs on one pooled session, pipelined; commits
 * are heard across processes through LISTEN/NOTIFY; processes take turns at
 * shared work under advisory locks.
 */
export const postgresBackend: StoreBackend = {
  dialect: 'postgres',

  serves: (location) => Boolean(location.databaseUrl),

  async open(location, durability): Promise<OpenedBackend> {
    const databaseUrl = location.databaseUrl!;
    const pool = new pg.Pool({
      connectionString: databaseUrl,
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
    let observer: CommitObserver | null = null;
    return {
      db,
      description: `postgres ${hideUrlCredentials(databaseUrl)}`,
      dataDir: null,
      walFile: () => null,
      commitUnit: (unit) => commitOnSession(pool, () => observer, unit),
      retryable(error) {
        const code = (error as { code?: unknown }).code;
        return typeof code === 'string' && RETRYABLE_CODES.has(code);
      },
      observeCommits(next) {
        observer = next;
      },
      listen: (onWorkspace) => listenForCommits(databaseUrl, onWorkspace),
      takeTurn: (options, work) => holdAdvisoryLock(db, options, work),
      close: () => db.destroy(),
    };
  },

  unavailableReason(error) {
    const { code } = error;
    if (typeof code === 'string') {
      const fatal = (error as { severity?: unknown }).severity === 'FATAL';
      if (UNAVAILABLE_WHEN_FATAL.has(code) && !fatal) return null;
      if (UNAVAILABLE_STATES.test(code)) return UNAVAILABLE_REASONS[code] ?? `PostgreSQL ${code}`;
      if (NETWORK_UNAVAILABLE.has(code)) return `database unreachable: ${code}`;
    }
    if (CONNECTION_LOST.test(error.message)) {
      return 'database connection lost';
    }
    return null;
  },

  refusedTextReason(error) {
    // 22021 character_not_in_repertoire: U+0000 in a text parameter; 22P05 untranslatable_character.
    if (error.code === '22021' || error.code === '22P05') {
      return 'the input holds a character PostgreSQL cannot store in text (U+0000, NUL)';
    }
    // 54000 program_limit_exceeded, for an index entry: a name or id of a few kilobytes that an
    // index holds (a call's tool name or id) passes what PostgreSQL keeps in one (about 2.7 kB).
    if (error.code === '54000' && /^index row/.test(error.message)) {
      return 'the input holds a name or id too long for PostgreSQL to index (about 2.7 kB at most)';
    }
    return null;
  },
};
