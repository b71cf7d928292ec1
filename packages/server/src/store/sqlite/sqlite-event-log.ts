import type { Transaction } from 'kysely';
import {
  type EventGroup,
  groupEvents,
  type PendingEvent,
  type StoredEvent,
  sequence,
} from '../event-log.js';
import { runPrepared, ValuesInOrder } from '../prepared.js';
import type { Database } from '../schema.js';

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
