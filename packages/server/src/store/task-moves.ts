import type { TaskState } from '@airlock/core';
import { insertRow, runPrepared } from './prepared.js';
import type { TaskTable } from './schema.js';
import { forgetRows, notePlanted } from './settlement-rows.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';
import { stateLiteral } from './tasks.js';

/**
 * The writes of a task row's state, as the kernel's task machine makes them
 * (kernel/machines/move-task.ts and cancel-outstanding.ts decide; these write): the
 * plant's INSERT, a move's conditional UPDATE, a run's cancel. Each keeps
 * the unit's knowledge of fresh runs' rows in step (see settlement-rows.ts).
 */

/**
 * Writes a freshly planted row. Nothing is read back, so on PostgreSQL the
 * INSERT goes out with the unit's next statement (see `insertRow`).
 */
export async function insertTask(tx: Tx, row: TaskTable): Promise<void> {
  const { db, dialect } = tx[SQL];
  await insertRow(db, dialect, 'tasks', row);
  notePlanted(tx, row);
}

/** A conditional UPDATE of one row, as a move of the task machine asks for it. */
export interface TaskMoveWrite {
  /** The verb: with the rest of the shape, names the prepared statement. */
  verb: string;
  runId: string;
  key: string;
  /** The columns to set (an undefined value leaves its column alone). */
  change: Record<string, unknown>;
  /** The row must be in one of these states. */
  from: readonly TaskState[];
  /** When not empty, the row must be of one of these kinds. */
  kinds: readonly string[];
  /** The row's claim must be this one. */
  claimId?: string | undefined;
  /** This column of the row (its deadline, its claim's lease) must have passed. */
  due?: 'deadline_at' | 'lease_until' | undefined;
}

/**
 * Moves one row when it still meets every condition (so exactly one of two
 * racing moves wins); returns the row as moved, undefined when it matched
 * nothing.
 */
export async function writeTaskMove(tx: Tx, write: TaskMoveWrite): Promise<TaskTable | undefined> {
  const { change, from, kinds, claimId, due } = write;
  const columns = Object.keys(change).filter((column) => change[column] !== undefined);
  const values: Record<string, unknown> = { run_id: write.runId, key: write.key, now: tx.now };
  for (const column of columns) values[`set:${column}`] = change[column];
  from.forEach((state, i) => {
    values[`from:${i}`] = state;
  });
  kinds.forEach((kind, i) => {
    values[`kind:${i}`] = kind;
  });
  if (claimId !== undefined) values.claim_id = claimId;
  forgetRows(tx, write.runId);
  const shape = [
    write.verb,
    columns.join(','),
    from.length,
    claimId !== undefined ? 'claim' : '',
    due ?? '',
  ].join(':');
  const { db, dialect } = tx[SQL];
  const { rows } = await runPrepared(
    db,
    dialect,
    `tasks.move:${shape}`,
    (p) =>
      db
        .updateTable('tasks')
        .set(Object.fromEntries(columns.map((column) => [column, p(`set:${column}`)])))
        .where('run_id', '=', p('run_id'))
        .where('key', '=', p('key'))
        .where(
          'state',
          'in',
          from.map((_, i) => p(`from:${i}`)),
        )
        .$if(kinds.length > 0, (qb) =>
          qb.where(
            'kind',
            'in',
            kinds.map((_, i) => p(`kind:${i}`)),
          ),
        )
        .$if(claimId !== undefined, (qb) => qb.where('claim_id', '=', p('claim_id')))
        .$if(due !== undefined, (qb) => qb.where(due!, '<=', p('now')))
        .returningAll(),
    values,
  );
  return rows[0];
}

/**
 * Cancels a run's rows: those resting in `unstarted`, and claimed rows of
 * these `claimedKinds` (work a stopped run cannot wait for). Returns the
 * canceled keys.
 */
export async function cancelRunRows(
  tx: Tx,
  cancel: {
    runId: string;
    unstarted: readonly TaskState[];
    claimedKinds: readonly TaskTable['kind'][];
    principal: string | null;
  },
): Promise<string[]> {
  forgetRows(tx, cancel.runId);
  const canceled = await tx[SQL].db
    .updateTable('tasks')
    .set({ state: 'canceled', deadline_at: null, updated_at: tx.now, decided_by: cancel.principal })
    .where('run_id', '=', cancel.runId)
    .where((eb) =>
      eb.or([
        eb('state', 'in', cancel.unstarted),
        eb.and([eb('state', '=', stateLiteral('claimed')), eb('kind', 'in', cancel.claimedKinds)]),
      ]),
    )
    .returning('key')
    .execute();
  return canceled.map((c) => c.key);
}
