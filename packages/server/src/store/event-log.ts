import type { EventData } from '@airlock/core';
import type { Transaction } from 'kysely';
import { runPrepared, type Statement, ValuesInOrder } from './prepared.js';
import type { Database, EventType, RunEventTable } from './schema.js';

/** The data of an event: required when its type declares a required field. */
type DataOf<T extends EventType> =
  Record<never, never> extends EventData<T> ? { data?: EventData<T> } : { data: EventData<T> };

/**
 * An event waiting in a transaction; it gets its sequence number when the
 * transaction ends. Its data is typed by its type from core's event union.
 */
export type PendingEvent = {
  [T in EventType]: {
    workspace_id: string;
    run_id: string;
    task_key?: string | null;
    type: T;
    principal?: string | null;
  } & DataOf<T>;
}[EventType];

/** A committed event as stored. */
export type StoredEvent = RunEventTable;

/** A transaction's events of one workspace, as rows waiting for their sequence numbers. */
export interface EventGroup {
  workspaceId: string;
  rows: StoredEvent[];
}

const EVENT_COLUMNS = [
  'workspace_id',
  'seq',
  'run_id',
  'task_key',
  'type',
  'data',
  'principal',
  'created_at',
] as const satisfies readonly (keyof StoredEvent)[];

/** Most event rows one SQLite INSERT carries (8 parameters each, under SQLite's limit). */
const SQLITE_ROWS_PER_INSERT = 200;

/** The named parameter of each row's columns (`3:type`), made once instead of per event. */
const PARAMETER_NAMES = Array.from({ length: SQLITE_ROWS_PER_INSERT }, (_, n) =>
  EVENT_COLUMNS.map((column) => `${n}:${column}`),
);

/** Per number of rows: every row's parameter names, row after row, as the INSERT uses them. */
const parameterOrders = new Map<number, readonly string[]>();

function parameterOrder(rows: number): readonly string[] {
  let order = parameterOrders.get(rows);
  if (!order) {
    order = PARAMETER_NAMES.slice(0, rows).flat();
    parameterOrders.set(rows, order);
  }
  return order;
}

/**
 * PostgreSQL: the sequence bump, the NOTIFY and every event row of one
 * workspace in one statement. The NOTIFY names the workspace and the last
 * sequence number the transaction takes (`ws_… 42`), so that a listener
 * already past it (the process that committed) does not read the log again. The workspace row is locked by the UPDATE, so
 * sequence numbers are handed out in commit order and without gaps, which
 * the feed relies on; sent in the same write as the COMMIT, it holds that
 * lock for one round trip. Without the workspace row, `seq` is null and the
 * insert fails, so the COMMIT after it rolls everything back.
 */
const POSTGRES_APPEND = `with bumped as (
  update workspaces set event_seq = event_seq + $2::bigint where id = $1
  returning event_seq, pg_notify('airlock_events', $1::text || ' ' || event_seq::text)
)
insert into run_events (workspace_id, seq, run_id, task_key, type, data, principal, created_at)
select $1, bumped.event_seq - $2::bigint + e.ord, e.run_id, e.task_key, e.type, e.data, e.principal, $3::bigint
from unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
  with ordinality as e(run_id, task_key, type, data, principal, ord)
  left join bumped on true
returning seq`;

/**
 * Groups a transaction's events by workspace, in the order every transaction
 * takes workspace row locks (sorted), each event as the row it will be.
 */
export function groupEvents(events: readonly PendingEvent[], now: number): EventGroup[] {
  const byWorkspace = new Map<string, StoredEvent[]>();
  for (const event of events) {
    const row: StoredEvent = {
      workspace_id: event.workspace_id,
      seq: 0,
      run_id: event.run_id,
      task_key: event.task_key ?? null,
      type: event.type,
      data: JSON.stringify(event.data ?? {}),
      principal: event.principal ?? null,
      created_at: now,
    };
    const rows = byWorkspace.get(event.workspace_id);
    if (rows) rows.push(row);
    else byWorkspace.set(event.workspace_id, [row]);
  }
  const order = byWorkspace.size === 1 ? [...byWorkspace.keys()] : [...byWorkspace.keys()].sort();
  return order.map((workspaceId) => ({ workspaceId, rows: byWorkspace.get(workspaceId)! }));
}

/** Numbers a group's rows so that the last one gets `last`. */
function sequence(group: EventGroup, last: number): void {
  let seq = last - group.rows.length;
  for (const row of group.rows) {
    seq += 1;
    row.seq = seq;
  }
}

/** PostgreSQL: the one statement that appends a group (see POSTGRES_APPEND). */
export function postgresAppend(group: EventGroup, now: number): Statement {
  const { rows } = group;
  return {
    sql: POSTGRES_APPEND,
    parameters: [
      group.workspaceId,
      rows.length,
      now,
      rows.map((row) => row.run_id),
      rows.map((row) => row.task_key),
      rows.map((row) => row.type),
      rows.map((row) => row.data),
      rows.map((row) => row.principal),
    ],
  };
}

/**
 * PostgreSQL: numbers a group's rows from what its statement returned.
 * @throws Error when the workspace does not exist (nothing was inserted).
 */
export function sequencePostgres(group: EventGroup, returned: readonly unknown[]): void {
  if (returned.length !== group.rows.length) throw new Error(`no workspace ${group.workspaceId}`);
  let last = 0;
  for (const row of returned as { seq: number | string }[]) last = Math.max(last, Number(row.seq));
  sequence(group, last);
}

/**
 * SQLite: the event counters of the workspaces one group-commit batch
 * writes to. Every unit of the batch commits with the same COMMIT, in the
 * order the units ran, so the counter is read once per batch and workspace,
 * handed out in memory, and written once before the COMMIT (see
 * {@link SqliteSequences.flush}); a unit that rolls back gives its numbers
 * back (see {@link SqliteSequences.restore}), so no number is skipped.
 */
export class SqliteSequences {
  /** Per workspace: the last number handed out, and the counter as stored. */
  private readonly counters = new Map<string, { last: number; stored: number }>();
  /** Per workspace the current unit of work took numbers of: its last number before (null: unread). */
  private undo: Map<string, number | null> | null = null;

  /** Starts a unit of work: what it takes from here on, {@link restore} gives back. */
  startUnit(): void {
    this.undo = null;
  }

  /** Gives back every number the current unit of work took. */
  restore(): void {
    for (const [id, last] of this.undo ?? []) {
      if (last === null) this.counters.delete(id);
      else this.counters.get(id)!.last = last;
    }
    this.undo = null;
  }

  /**
   * Hands out `count` numbers of a workspace and returns the last one.
   * @throws Error when the workspace does not exist.
   */
  take(trx: Transaction<Database>, workspaceId: string, count: number): number | Promise<number> {
    const counter = this.counters.get(workspaceId);
    this.undo ??= new Map();
    if (!this.undo.has(workspaceId)) this.undo.set(workspaceId, counter ? counter.last : null);
    // Only a batch's first take of a workspace reads; the others answer at once, without a promise.
    if (counter) {
      counter.last += count;
      return counter.last;
    }
    return this.read(trx, workspaceId).then((read) => {
      read.last += count;
      return read.last;
    });
  }

  /** Reads a workspace's stored counter into the batch's. */
  private async read(
    trx: Transaction<Database>,
    workspaceId: string,
  ): Promise<{ last: number; stored: number }> {
    const { rows } = await runPrepared(
      trx,
      'sqlite',
      'workspaces.event_seq',
      (p) => trx.selectFrom('workspaces').select('event_seq').where('id', '=', p('id')),
      { id: workspaceId },
    );
    if (!rows[0]) throw new Error(`no workspace ${workspaceId}`);
    const counter = { last: rows[0].event_seq, stored: rows[0].event_seq };
    this.counters.set(workspaceId, counter);
    return counter;
  }

  /** Writes every counter that moved (the batch's last statements before its COMMIT). */
  async flush(trx: Transaction<Database>): Promise<void> {
    for (const [id, counter] of this.counters) {
      if (counter.last === counter.stored) continue;
      await runPrepared(
        trx,
        'sqlite',
        'workspaces.set_seq',
        (p) =>
          trx
            .updateTable('workspaces')
            .set({ event_seq: p('seq') })
            .where('id', '=', p('id')),
        { id, seq: counter.last },
      );
      counter.stored = counter.last;
    }
  }
}

/**
 * SQLite: appends a transaction's events, sequenced per workspace after
 * everything else it wrote, and returns the rows as stored. SQLite has one
 * writer at a time, so the order is that of the commits.
 * @throws Error when an event names a workspace that does not exist.
 */
export async function appendSqliteEvents(
  trx: Transaction<Database>,
  sequences: SqliteSequences,
  events: readonly PendingEvent[],
  now: number,
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const groups = groupEvents(events, now);
  for (const group of groups) {
    const last = await sequences.take(trx, group.workspaceId, group.rows.length);
    sequence(group, last);
    await insertSqlite(trx, group);
  }
  return groups.length === 1 ? groups[0]!.rows : groups.flatMap((group) => group.rows);
}

/** One multi-row INSERT per 200 rows of a sequenced group. */
async function insertSqlite(trx: Transaction<Database>, group: EventGroup): Promise<void> {
  const { rows } = group;
  for (let i = 0; i < rows.length; i += SQLITE_ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + SQLITE_ROWS_PER_INSERT);
    const values: unknown[] = [];
    for (const row of chunk) for (const column of EVENT_COLUMNS) values.push(row[column]);
    await runPrepared(
      trx,
      'sqlite',
      `run_events.insert:${chunk.length}`,
      (p) =>
        trx
          .insertInto('run_events')
          .values(
            chunk.map((_, n) =>
              Object.fromEntries(
                EVENT_COLUMNS.map((column, c) => [column, p(PARAMETER_NAMES[n]![c]!)]),
              ),
            ) as unknown as StoredEvent[],
          ),
      new ValuesInOrder(parameterOrder(chunk.length), values),
    );
  }
}
