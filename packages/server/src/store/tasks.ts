import type { TaskState } from '@airlock/core';
import { type RawBuilder, sql } from 'kysely';
import { DIALECT_TRAITS, lockedForUpdate } from './dialect.js';
import { type PreparedQuery, readAhead, runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import { rowLimit } from './row-limit.js';
import type { TaskTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/**
 * The tasks repository: reads of task rows outside a unit of work. The moves
 * of a row (and the reads they need) go through the kernel's task machine.
 */

/**
 * A state as an SQL literal, for a condition on `tasks.state` (and the same
 * goes for `kind`, `on_failure` and the other columns the partial indexes'
 * conditions name: `sql.lit`). The partial indexes name their states
 * literally, so SQLite can match a literal with them. A bound value it has
 * to compare with the index's condition as bound, and it then prepares the
 * statement again on every run (better-sqlite3's SQLite is built with
 * STAT4): a read of a round's rows with `kind = ?` and `state = ?` took 35 µs
 * instead of 14.
 */
export function stateLiteral<S extends TaskState>(state: S): RawBuilder<S> {
  return sql.lit(state);
}

/** Which rows of a run to list, in planting order. */
export interface TaskListing {
  /** At most this many rows; every row after `afterKey` when absent. */
  limit?: number | undefined;
  /** Only the rows planted after this one (a key such as `t12`). */
  afterKey?: string | undefined;
}

/**
 * The rows of a run in planting order (`t1`, `t2`, … `t10`): a key is `t`
 * and its number, so (length, key) orders them as their numbers do.
 */
export async function listTasksOfRun(
  store: Store,
  runId: string,
  listing: TaskListing = {},
): Promise<TaskTable[]> {
  const { limit, afterKey } = listing;
  const keyLength = sql<number>`length(${sql.ref('key')})`;
  return store.db
    .selectFrom('tasks')
    .selectAll()
    .where('run_id', '=', runId)
    .$if(afterKey !== undefined, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb(keyLength, '>', afterKey!.length),
          eb.and([eb(keyLength, '=', afterKey!.length), eb('key', '>', afterKey!)]),
        ]),
      ),
    )
    .orderBy(keyLength)
    .orderBy('key')
    .$if(limit !== undefined, (qb) => qb.limit(rowLimit(limit!)))
    .execute();
}

/** The state of a run's first row (by key), or null before it is planted: reads no input. */
export async function firstTaskState(store: Store, runId: string): Promise<TaskState | null> {
  const row = await store.db
    .selectFrom('tasks')
    .select('state')
    .where('run_id', '=', runId)
    .orderBy('key')
    .executeTakeFirst();
  return row?.state ?? null;
}

/** Where a page of waiting rows starts: after this row in the page's order. */
export interface DecisionCursor {
  createdAt: number;
  runId: string;
  key: string;
}

/** A page of waiting rows and how many wait in all. */
export interface DecisionPage {
  rows: TaskTable[];
  total: number;
}

/**
 * A page of the rows of a workspace resting on a person (parked or asking;
 * a question authored through the tasks door is left out, since it is its
 * token holder's alone), oldest or newest first by (created_at, run_id, key),
 * after a cursor row, with the count of every waiting row of the workspace.
 */
export async function pageOpenDecisions(
  reader: Reader,
  workspaceId: string,
  page: { limit: number; order: 'oldest' | 'newest'; after?: DecisionCursor | undefined },
): Promise<DecisionPage> {
  // Index tasks_waiting_by_workspace (waiting-page-migration.ts) holds exactly these rows, in page order.
  const waiting = reader[SQL].db
    .selectFrom('tasks')
    .where('workspace_id', '=', workspaceId)
    .where('state', 'in', [stateLiteral('needs_approval'), stateLiteral('awaiting_input')])
    .where('resolution_token_hash', 'is', null);
  const direction = page.order === 'newest' ? 'desc' : 'asc';
  const after = page.after;
  const [rows, count] = await Promise.all([
    waiting
      .selectAll()
      .$if(after !== undefined, (qb) =>
        qb.where((eb) => {
          const cursor = after as DecisionCursor;
          const beyond = page.order === 'newest' ? '<' : '>';
          return eb.or([
            eb('created_at', beyond, cursor.createdAt),
            eb.and([
              eb('created_at', '=', cursor.createdAt),
              eb.or([
                eb('run_id', beyond, cursor.runId),
                eb.and([eb('run_id', '=', cursor.runId), eb('key', beyond, cursor.key)]),
              ]),
            ]),
          ]);
        }),
      )
      .orderBy('created_at', direction)
      .orderBy('run_id', direction)
      .orderBy('key', direction)
      .limit(rowLimit(page.limit))
      .execute(),
    waiting.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.total ?? 0) };
}

/** One row of a run by key; undefined when the run has none. */
export async function findTask(
  reader: Reader,
  runId: string,
  key: string,
): Promise<TaskTable | undefined> {
  // A prepared statement: this read is on the path of every decision.
  const { db, dialect } = reader[SQL];
  const { key: queryKey, build, values } = findTaskQuery(reader, runId, key);
  const { rows } = await runPrepared(db, dialect, queryKey, build, values);
  return rows[0] as TaskTable | undefined;
}

function findTaskQuery(reader: Reader, runId: string, key: string): PreparedQuery {
  const { db } = reader[SQL];
  return {
    key: 'tasks.find',
    build: (p) =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('run_id', '=', p('run_id'))
        .where('key', '=', p('key')),
    values: { run_id: runId, key },
  };
}

/**
 * On PostgreSQL, sends {@link findTask} with the unit's next statement (see
 * `readAhead`), such as the lock of the row's run; undefined on SQLite.
 */
export function findTaskAhead(
  reader: Reader,
  runId: string,
  key: string,
): Promise<TaskTable | undefined> | undefined {
  const { db, dialect } = reader[SQL];
  const rows = readAhead<TaskTable>(db, dialect, findTaskQuery(reader, runId, key));
  const row = rows?.then((found) => found[0]);
  // A unit that fails before it reads the row leaves it unread: not an unhandled rejection.
  row?.catch(() => {});
  return row;
}

/** The row a hook or summarizer step planted (its `event:source`), when any; `runnable` only if asked. */
export async function findTaskBySource(
  reader: Reader,
  runId: string,
  source: string,
  options: { runnableOnly?: boolean } = {},
): Promise<TaskTable | undefined> {
  return reader[SQL].db
    .selectFrom('tasks')
    .selectAll()
    .where('run_id', '=', runId)
    .where('hook_source', '=', source)
    .$if(options.runnableOnly === true, (qb) => qb.where('state', '=', stateLiteral('runnable')))
    .executeTakeFirst();
}

/**
 * The rows a run's model has read or will read: its own calls, and the stop
 * hook rows that succeeded (their continuation feedback opens a round); of
 * one round when `round` is given. Unordered.
 */
export async function listFedTasks(
  reader: Reader,
  runId: string,
  round?: number,
): Promise<TaskTable[]> {
  // A prepared statement per shape (one round, or the whole run).
  const { db, dialect } = reader[SQL];
  const inRound = round !== undefined;
  const { rows } = await runPrepared(
    db,
    dialect,
    inRound ? 'tasks.fed_of_round' : 'tasks.fed_of_run',
    (p) => {
      let query = db.selectFrom('tasks').selectAll().where('run_id', '=', p('run_id'));
      if (inRound) query = query.where('round', '=', p('round'));
      return query.where((eb) =>
        eb.or([
          eb('origin', '=', sql.lit('model')),
          // Literals, not parameters: see stateLiteral.
          eb.and([eb('kind', '=', sql.lit('hook')), eb('state', '=', stateLiteral('succeeded'))]),
        ]),
      );
    },
    inRound ? { run_id: runId, round } : { run_id: runId },
  );
  return rows as TaskTable[];
}

/** Arms a row's deadline (a hook row's timeout, once it is approved). */
export async function setTaskDeadline(
  reader: Reader,
  row: Pick<TaskTable, 'run_id' | 'key' | 'deadline_at'>,
): Promise<void> {
  await reader[SQL].db
    .updateTable('tasks')
    .set({ deadline_at: row.deadline_at })
    .where('run_id', '=', row.run_id)
    .where('key', '=', row.key)
    .execute();
}

/**
 * Rewrites a parked row's call after a person edited it (approve with
 * changes): its input, what the approval stage said of it, and its
 * effect profile, stamped with the row's `updated_at` (the caller's, which
 * moves its version); the row keeps its state. True when the row was still parked.
 */
export async function rewriteParkedCall(
  tx: Tx,
  row: Pick<
    TaskTable,
    | 'run_id'
    | 'key'
    | 'tool_input'
    | 'resolved_tool_name'
    | 'decision'
    | 'effect_profile'
    | 'updated_at'
  >,
): Promise<boolean> {
  const result = await tx[SQL].db
    .updateTable('tasks')
    .set({
      tool_input: row.tool_input,
      resolved_tool_name: row.resolved_tool_name,
      decision: row.decision,
      effect_profile: row.effect_profile,
      updated_at: row.updated_at,
    })
    .where('run_id', '=', row.run_id)
    .where('key', '=', row.key)
    .where('state', '=', stateLiteral('needs_approval'))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Clears the addressee of the rows held for it in these states (read locked first where the
 * backend needs it, their runs before them). Returns each row as it was and as it is now, so a
 * caller can carry what is keyed to the row's version (a parked row's approvals) to the new one.
 */
export async function clearAddressee(
  tx: Tx,
  options: { addressee: string; states: readonly TaskState[] },
): Promise<{ before: TaskTable; after: TaskTable }[]> {
  const { db, dialect } = tx[SQL];
  const states = options.states.map((state) => stateLiteral(state));
  if (DIALECT_TRAITS[dialect].sharedByProcesses) {
    // A decision takes its row's run lock first: an approval given meanwhile to the row as it
    // is now commits before the rows are read, and is carried to the new version. Without
    // the runs' locks it committed after the carry, to a version no row has any more: lost.
    await db
      .selectFrom('runs')
      .select('id')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('tasks')
          .select('tasks.run_id')
          .where('tasks.addressee', '=', options.addressee)
          .where('tasks.state', 'in', states),
      )
      .orderBy('id')
      .forUpdate()
      .execute();
  }
  const held = await lockedForUpdate(
    dialect,
    db
      .selectFrom('tasks')
      .selectAll()
      .where('addressee', '=', options.addressee)
      .where('state', 'in', states)
      .orderBy('run_id')
      .orderBy('key'),
  ).execute();
  if (held.length === 0) return [];
  await db
    .updateTable('tasks')
    .set({ addressee: null, updated_at: tx.now })
    .where('addressee', '=', options.addressee)
    .where('state', 'in', states)
    .execute();
  return held.map((before) => ({
    before: before as TaskTable,
    after: { ...(before as TaskTable), addressee: null, updated_at: tx.now },
  }));
}

/** A row the clocks sweep: where it is, and its claim when it holds one. */
export type DueRow = Pick<TaskTable, 'run_id' | 'workspace_id' | 'key'>;

/** Rows resting in a waiting state whose deadline passed, earliest first (at most `limit`). */
export async function waitingRowsDue(
  store: Store,
  due: { state: 'needs_approval' | 'awaiting_input'; now: number; limit: number },
): Promise<DueRow[]> {
  return store.db
    .selectFrom('tasks')
    .select(['run_id', 'workspace_id', 'key'])
    .where('state', '=', sql.lit(due.state))
    .where('deadline_at', '<=', due.now)
    .orderBy('deadline_at')
    .limit(rowLimit(due.limit))
    .execute();
}

/** Claimed rows whose lease lapsed, with their tool (at most `limit`). */
export async function lapsedClaims(
  store: Store,
  due: { now: number; limit: number },
): Promise<(DueRow & Pick<TaskTable, 'claim_id' | 'tool_name' | 'resolved_tool_name'>)[]> {
  return store.db
    .selectFrom('tasks')
    .select(['run_id', 'workspace_id', 'key', 'claim_id', 'tool_name', 'resolved_tool_name'])
    .where('state', '=', stateLiteral('claimed'))
    .where('lease_until', '<=', due.now)
    .limit(rowLimit(due.limit))
    .execute();
}

/** Hook rows, runnable or claimed, whose timeout passed (at most `limit`). */
export async function hookRowsDue(
  store: Store,
  due: { now: number; limit: number },
): Promise<DueRow[]> {
  return store.db
    .selectFrom('tasks')
    .select(['run_id', 'workspace_id', 'key'])
    .where('kind', '=', sql.lit('hook'))
    .where('state', 'in', [stateLiteral('runnable'), stateLiteral('claimed')])
    .where('deadline_at', '<=', due.now)
    .limit(rowLimit(due.limit))
    .execute();
}
