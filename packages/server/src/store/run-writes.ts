import { lockedForUpdate } from './dialect.js';
import type { Param, PreparedQuery } from './prepared.js';
import { insertRow, runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import type { RunTable } from './schema.js';
import { markFresh } from './settlement-rows.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';

/**
 * The runs repository inside a unit of work: a run is read with its lock,
 * inserted, and changed in memory by the kernel's run machine, which hands
 * it back here to be written once, at the end of the unit, with only the
 * columns that changed since it was read. What the unit read of each run is
 * kept here, beside the write that needs it.
 */

/** The run columns a unit of work may change (written once, at its end). */
const TOUCHED_COLUMNS = [
  'state',
  'phase',
  'round',
  'task_counter',
  'attention',
  'final_answer',
  'error_code',
  'error_detail',
  'model_lease_owner',
  'model_lease_until',
  'continuations',
  'pending_answer',
  'compactions',
  'summary',
  'summary_through_round',
  'updated_at',
  'ended_at',
] as const satisfies readonly (keyof RunTable)[];

/** Per unit of work, per run row it read (or inserted): its touchable columns as stored then. */
const stored = new WeakMap<Tx, WeakMap<RunTable, unknown[]>>();

/** Per unit of work, the run rows to write at its end. */
const pending = new WeakMap<Tx, Set<RunTable>>();

/**
 * Records a run row's columns as the store holds them (a row this unit of
 * work just read with its lock, or just inserted), so that the write at the
 * end of the unit sets only the columns that changed since. A row not
 * recorded in this unit (say, one kept from an earlier unit) has every
 * column written.
 */
function rememberStored(tx: Tx, run: RunTable): void {
  let rows = stored.get(tx);
  if (!rows) {
    rows = new WeakMap();
    stored.set(tx, rows);
  }
  rows.set(
    run,
    TOUCHED_COLUMNS.map((column) => run[column]),
  );
}

/**
 * Reads a run of a workspace, locking its row on PostgreSQL until the
 * transaction ends; undefined when the workspace has no such run.
 */
export async function lockRunRow(
  tx: Tx,
  workspaceId: string,
  runId: string,
): Promise<RunTable | undefined> {
  const { db, dialect } = tx[SQL];
  const { rows } = await runPrepared(
    db,
    dialect,
    'runs.lock',
    (p) =>
      db
        .selectFrom('runs')
        .selectAll()
        .where('id', '=', p('id'))
        .where('workspace_id', '=', p('workspace_id'))
        .$call((qb) => lockedForUpdate(dialect, qb)),
    { id: runId, workspace_id: workspaceId },
  );
  const run = rows[0];
  if (run) rememberStored(tx, run);
  return run;
}

/** Reads a run of a workspace without locking; undefined when the workspace has no such run. */
export async function readRunRow(
  reader: Reader,
  workspaceId: string,
  runId: string,
): Promise<RunTable | undefined> {
  return reader[SQL].db
    .selectFrom('runs')
    .selectAll()
    .where('id', '=', runId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/**
 * Inserts a new run. Nothing is read back, so on PostgreSQL the INSERT goes
 * out with the unit's next statement; the run is known to have no rows yet
 * (see settlement-rows.ts), and its later changes are written as changes.
 */
export async function insertRunRow(tx: Tx, run: RunTable): Promise<void> {
  const { db, dialect } = tx[SQL];
  await insertRow(db, dialect, 'runs', run);
  rememberStored(tx, run);
  markFresh(tx, run.id);
}

/** The UPDATE of a changed run: the columns that changed since it was stored, or null for none. */
function runWrite(tx: Tx, run: RunTable): PreparedQuery | null {
  const values = run as unknown as Record<string, unknown>;
  const before = stored.get(tx)?.get(run);
  // Kysely leaves undefined columns out of a SET; so does the prepared shape.
  const columns = TOUCHED_COLUMNS.filter(
    (column, i) => values[column] !== undefined && (!before || before[i] !== values[column]),
  );
  if (columns.length === 0) return null;
  const { db } = tx[SQL];
  return {
    key: `runs.touch:${columns.join(',')}`,
    build: (p: Param) =>
      db
        .updateTable('runs')
        .set(Object.fromEntries(columns.map((c) => [c, p(c)])))
        .where('id', '=', p('id')),
    values,
  };
}

/**
 * Writes a run row changed in memory once, at the end of the unit of work
 * (on PostgreSQL, with its COMMIT), however many steps changed it; a run
 * whose columns are back to what was read is not written. Only the kernel's
 * run machine calls this (`touchRun`).
 */
export function writeRunAtCommit(tx: Tx, run: RunTable): void {
  let runs = pending.get(tx);
  if (!runs) {
    const set = new Set<RunTable>();
    runs = set;
    pending.set(tx, set);
    tx.beforeCommit(() =>
      [...set].flatMap((changed) => {
        const write = runWrite(tx, changed);
        return write ? [write] : [];
      }),
    );
  }
  runs.add(run);
}

/**
 * Takes a running run's model lease when its next step is the model's and
 * nobody holds the lease; returns the run as leased, undefined otherwise.
 * Called by the run machine only (kernel/machines/run-machine.ts, `leaseModel`).
 */
export async function writeModelLease(
  tx: Tx,
  lease: { runId: string; owner: string; until: number },
): Promise<RunTable | undefined> {
  return tx[SQL].db
    .updateTable('runs')
    .set({ model_lease_owner: lease.owner, model_lease_until: lease.until })
    .where('id', '=', lease.runId)
    .where('state', '=', 'running')
    .where('phase', '=', 'model')
    .where((eb) =>
      eb.or([eb('model_lease_until', 'is', null), eb('model_lease_until', '<', tx.now)]),
    )
    .returningAll()
    .executeTakeFirst();
}
