import type { Socket } from 'node:net';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  type PostgresPool,
  type PostgresPoolClient,
  PostgresQueryCompiler,
  type QueryResult,
  type Transaction,
} from 'kysely';
import type pg from 'pg';
import { type Statement, type StatementChannel, useChannel } from '../prepared.js';
import type { Database } from '../schema.js';

/** Most SQL texts that get a server-side prepared statement; past it, statements go unnamed. */
const NAMED_STATEMENT_LIMIT = 1000;
const statementNames = new Map<string, string>();

/**
 * The server-side statement name of a SQL text: PostgreSQL then parses and
 * plans it once per connection instead of on every call. Names are per
 * process and never reused for another text, as the pg driver requires.
 */
function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < NAMED_STATEMENT_LIMIT) {
    name = `airlock_${statementNames.size + 1}`;
    statementNames.set(sql, name);
  }
  return name;
}

/** Sends one statement: named (prepared once per connection) when it has parameters. */
function send(client: pg.PoolClient, { sql, parameters }: Statement): Promise<pg.QueryResult> {
  if (parameters.length === 0) return client.query(sql);
  const name = statementName(sql);
  return client.query({ text: sql, values: parameters as unknown[], ...(name ? { name } : {}) });
}

/**
 * The pool as Kysely's PostgreSQL dialect sees it, its statements named like
 * a unit of work's (reads outside a transaction: authentication, views, the feed).
 */
export function namedStatementPool(pool: pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      return {
        query: ((text: unknown, parameters?: readonly unknown[]) =>
          typeof text === 'string'
            ? send(client, { sql: text, parameters: parameters ?? [] })
            : client.query(text as never)) as unknown as PostgresPoolClient['query'],
        release: (destroy?: boolean | Error) => client.release(destroy),
      };
    },
    end: () => pool.end(),
  };
}

/**
 * Sends statements in one write and waits for every answer; the pool's
 * clients run in the `pg` driver's pipeline mode, so none waits for the one
 * before it on the wire. PostgreSQL still runs them in order, each with its
 * own sync point: after a failed one, the rest fail (inside a transaction) or
 * a COMMIT answers ROLLBACK.
 * @throws the first statement's error, in order.
 */
async function sendTogether(client: pg.PoolClient, statements: readonly Statement[]) {
  const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  stream.cork();
  let sent: Promise<pg.QueryResult>[];
  try {
    sent = statements.map((statement) => send(client, statement));
  } finally {
    stream.uncork();
  }
  const settled = await Promise.allSettled(sent);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<pg.QueryResult>).value);
}

const BEGIN: Statement = { sql: 'begin', parameters: [] };

/**
 * One pooled client holding a transaction. Its BEGIN is not sent alone: it
 * goes out in the same write as the transaction's first statement (or its
 * COMMIT), which saves a round trip and a wake-up of the server per
 * transaction. Writes whose answer nobody reads (a row's INSERT) wait the
 * same way for the next statement.
 */
export class PostgresSession implements DatabaseConnection, StatementChannel {
  /** True until BEGIN has gone out on the wire. */
  private beginPending = false;
  /** Writes held back until the next statement, in order. */
  private held: Statement[] = [];
  /** Reads that go out right after the next statement, and who waits for their rows. */
  private ahead: { statement: Statement; settle: (rows: unknown[] | Error) => void }[] = [];
  /** The Kysely handle whose every query runs on this client. */
  readonly db: Transaction<Database>;

  private constructor(readonly client: pg.PoolClient) {
    const session = this;
    const driver: Driver = {
      async init() {},
      async acquireConnection() {
        return session;
      },
      async beginTransaction() {
        throw new Error('a PostgreSQL session is already a transaction');
      },
      async commitTransaction() {
        throw new Error('a PostgreSQL session commits through its store');
      },
      async rollbackTransaction() {
        throw new Error('a PostgreSQL session rolls back through its store');
      },
      async releaseConnection() {},
      async destroy() {},
    };
    // The unit of work reads this handle as a transaction: it is one, on one client.
    this.db = new Kysely<Database>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => driver,
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    }) as unknown as Transaction<Database>;
    useChannel(this.db, this);
  }

  sendLater(statement: Statement): void {
    this.held.push(statement);
  }

  readAhead(statement: Statement): Promise<unknown[]> {
    const rows = new Promise<unknown[]>((resolve, reject) => {
      this.ahead.push({
        statement,
        settle: (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)),
      });
    });
    // A unit that fails before it reads them leaves the rows unread: not an unhandled rejection.
    rows.catch(() => {});
    return rows;
  }

  private static readonly sessions = new WeakMap<pg.PoolClient, PostgresSession>();

  /** The session of a pooled client (one per client, reused across its transactions). */
  static of(client: pg.PoolClient): PostgresSession {
    let session = PostgresSession.sessions.get(client);
    if (!session) {
      session = new PostgresSession(client);
      PostgresSession.sessions.set(client, session);
    }
    return session;
  }

  /** Starts a transaction; BEGIN is sent with the first statement. */
  begin(): void {
    this.beginPending = true;
    this.held = [];
    this.dropReadsAhead();
  }

  /** Fails the reads still waiting to go out (their unit ends without them). */
  private dropReadsAhead(): void {
    const ahead = this.ahead;
    this.ahead = [];
    for (const read of ahead)
      read.settle(new Error('the unit of work ended before this read went out'));
  }

  /** What must go out before the next statement: BEGIN if it has not, then the held writes. */
  private lead(): Statement[] {
    const lead = this.beginPending ? [BEGIN, ...this.held] : this.held;
    this.beginPending = false;
    this.held = [];
    return lead;
  }

  /** True when BEGIN has gone out, so the transaction must be ended on the wire. */
  get begun(): boolean {
    return !this.beginPending;
  }

  /**
   * Sends the last statements of the transaction and its COMMIT in one write
   * (with BEGIN first when nothing was sent yet); returns each statement's rows.
   * @throws the first failing statement's error (the transaction is then rolled back).
   */
  async commitWith(statements: readonly Statement[]): Promise<unknown[][]> {
    // The unit's work is done: nobody is left to read rows asked for ahead.
    this.dropReadsAhead();
    if (this.beginPending && this.held.length === 0 && statements.length === 0) {
      this.beginPending = false;
      return [];
    }
    const lead = this.lead();
    const results = await sendTogether(this.client, [
      ...lead,
      ...statements,
      { sql: 'commit', parameters: [] },
    ]);
    const commit = results[results.length - 1]!;
    if (commit.command !== 'COMMIT') throw new Error(`the transaction ended in ${commit.command}`);
    return results.slice(lead.length, -1).map((result) => result.rows);
  }

  /** Rolls the transaction back if it began on the wire. */
  async rollback(): Promise<void> {
    this.held = [];
    this.dropReadsAhead();
    if (this.beginPending) {
      this.beginPending = false;
      return;
    }
    await this.client.query('rollback');
  }

  /** Runs one of the unit of work's statements (after BEGIN, in the same write, if it is the first). */
  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const statement = { sql: compiled.sql, parameters: compiled.parameters };
    let result: pg.QueryResult;
    if (this.ahead.length > 0) {
      result = await this.sendWithReadsAhead(statement);
    } else if (this.beginPending || this.held.length > 0) {
      const lead = this.lead();
      result = (await sendTogether(this.client, [...lead, statement]))[lead.length]!;
    } else {
      result = await send(this.client, statement);
    }
    const { command, rowCount, rows } = result;
    const changed =
      command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return {
      rows: (rows ?? []) as R[],
      ...(changed ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}),
    };
  }

  /** Sends a statement with the reads ahead after it, in one write; settles each read with its rows. */
  private async sendWithReadsAhead(statement: Statement): Promise<pg.QueryResult> {
    const lead = this.lead();
    const ahead = this.ahead;
    this.ahead = [];
    const sent = [...lead, statement, ...ahead.map((read) => read.statement)];
    let results: pg.QueryResult[];
    try {
      results = await sendTogether(this.client, sent);
    } catch (error) {
      for (const read of ahead)
        read.settle(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    for (const [i, read] of ahead.entries()) read.settle(results[lead.length + 1 + i]!.rows);
    return results[lead.length]!;
  }

  // biome-ignore lint/correctness/useYield: no statement of a unit of work streams.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used inside a unit of work');
  }
}
