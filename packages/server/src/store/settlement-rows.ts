import { sql } from 'kysely';
import { type PreparedQuery, readAhead, runPrepared } from './prepared.js';
import { rowLimit } from './row-limit.js';
import type { RunTable, TaskTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';
import { stateLiteral } from './tasks.js';

/**
 * The rows a run's settle step reads, and what this unit of work knows of
 * them without asking: a run created in the unit is nobody else's until it
 * commits, so its rows are the ones planted on it since, until a write other
 * than a plant changes one. The writes of `tasks` in store/ keep that
 * knowledge in step themselves (`notePlanted`, `forgetRows`); the kernel
 * only asks for the rows.
 */

/** The columns the settle step reads of a row (see `refreshAttention` in the kernel). */
export const SETTLEMENT_COLUMNS = [
  'key',
  'state',
  'on_failure',
  'error_code',
  'origin',
  'round',
  'kind',
  'hook_source',
] as const satisfies readonly (keyof TaskTable)[];

/** A row as the settle step reads it. */
export type SettlementRow = Pick<TaskTable, (typeof SETTLEMENT_COLUMNS)[number]>;

/** A run as the settle step reads its rows: which run, and its current round. */
export type SettlementRun = Pick<RunTable, 'id' | 'round'>;

/**
 * Per unit of work: the runs it created, each with every row planted on it
 * since, as planted.
 */
const freshRuns = new WeakMap<Tx, Map<string, SettlementRow[]>>();

/** Records that the unit of work created this run (it has no rows yet); see `insertRunRow`. */
export function markFresh(tx: Tx, runId: string): void {
  let runs = freshRuns.get(tx);
  if (!runs) {
    runs = new Map();
    freshRuns.set(tx, runs);
  }
  runs.set(runId, []);
}

/** Records a row planted on a run (a no-op unless the run is fresh); see `insertTask`. */
export function notePlanted(tx: Tx, row: TaskTable): void {
  const rows = freshRuns.get(tx)?.get(row.run_id);
  if (!rows) return;
  const copy: Record<string, unknown> = {};
  for (const column of SETTLEMENT_COLUMNS) copy[column] = row[column];
  rows.push(copy as SettlementRow);
}

/**
 * Forgets what is known of a run's rows: called by every write of store/
 * that may change a row's settlement columns after its plant (a move, a
 * cancel), so the next settle reads the store instead.
 */
export function forgetRows(tx: Tx, runId: string): void {
  freshRuns.get(tx)?.delete(runId);
}

/** Under the test runner, every answer from memory is checked against the store. */
const CHECK_FRESH_ROWS = process.env.VITEST !== undefined;

/** The SQL reading of {@link settlementRows}: three index seeks, never a scan of the run. */
function settlementQuery(tx: Tx, run: SettlementRun): PreparedQuery {
  const { db } = tx[SQL];
  return {
    key: 'tasks.attention',
    build: (p) => {
      const waiting = db
        .selectFrom('tasks')
        .select(SETTLEMENT_COLUMNS)
        .where('run_id', '=', p('run_id'))
        .where('state', 'in', [stateLiteral('needs_approval'), stateLiteral('awaiting_input')]);
      const holding = db
        .selectFrom('tasks')
        .select(SETTLEMENT_COLUMNS)
        .where('run_id', '=', p('run_id'))
        .where('on_failure', '=', sql.lit('hold'))
        .where('state', 'in', [stateLiteral('failed'), stateLiteral('timed_out')]);
      const thisRound = db
        .selectFrom('tasks')
        .select(SETTLEMENT_COLUMNS)
        .where('run_id', '=', p('run_id'))
        .where('round', '=', p('round'))
        .where('origin', '=', sql.lit('model'));
      return waiting.unionAll(holding).unionAll(thisRound);
    },
    values: { run_id: run.id, round: run.round },
  };
}

async function readSettlementRows(tx: Tx, run: SettlementRun): Promise<SettlementRow[]> {
  const { key, build, values } = settlementQuery(tx, run);
  const { db, dialect } = tx[SQL];
  const { rows } = await runPrepared<SettlementRow>(db, dialect, key, build, values);
  return rows;
}

/**
 * On PostgreSQL, asks for a run's settle rows in the same write as the
 * unit's next statement, right after it (see `readAhead`); undefined on
 * SQLite. For a caller whose next statement is the one move a settle then
 * follows, with no write between; hand the promise to {@link settlementRows}.
 */
export function readSettlementRowsAhead(
  tx: Tx,
  run: SettlementRun,
): Promise<SettlementRow[]> | undefined {
  const { db, dialect } = tx[SQL];
  return readAhead<SettlementRow>(db, dialect, settlementQuery(tx, run));
}

/**
 * The rows the settle step reads, in key order: waiting on a person, holding,
 * and this round's model rows. A run created in this unit of work whose rows
 * only were planted since is answered from memory (the same rows the store
 * would return); any other run is read from the store, or taken from a read
 * sent ahead (`ahead`, see {@link readSettlementRowsAhead}).
 * @throws Error under the test runner, when an answer not read now differs from the store's.
 */
export async function settlementRows(
  tx: Tx,
  run: SettlementRun,
  ahead?: Promise<SettlementRow[]>,
): Promise<SettlementRow[]> {
  const fresh = freshRuns.get(tx)?.get(run.id);
  if (!fresh && ahead) {
    const rows = inKeyOrder(await ahead);
    if (CHECK_FRESH_ROWS) await checkAgainstStore(tx, run, rows, 'read ahead');
    return rows;
  }
  if (!fresh) return inKeyOrder(await readSettlementRows(tx, run));
  const rows = inKeyOrder(
    fresh.filter(
      (r) =>
        r.state === 'needs_approval' ||
        r.state === 'awaiting_input' ||
        (r.on_failure === 'hold' && (r.state === 'failed' || r.state === 'timed_out')) ||
        (r.round === run.round && r.origin === 'model'),
    ),
  );
  if (CHECK_FRESH_ROWS) await checkAgainstStore(tx, run, rows, 'in memory');
  return rows;
}

/**
 * Under the test runner: the settle rows a shortcut gave must be the store's.
 * Rows read ahead were read a moment before this check, and a claim moves a
 * row between `runnable` and `claimed` without the run's lock (another
 * executor, another process): the settle step treats the two alike, and so
 * does this comparison for them. A run created in this unit is nobody else's.
 */
async function checkAgainstStore(
  tx: Tx,
  run: SettlementRun,
  rows: SettlementRow[],
  how: 'in memory' | 'read ahead',
) {
  const comparable = (list: SettlementRow[]) =>
    JSON.stringify(
      how === 'in memory'
        ? list
        : list.map((r) => (r.state === 'claimed' ? { ...r, state: 'runnable' } : r)),
    );
  const stored = comparable(inKeyOrder(await readSettlementRows(tx, run)));
  if (comparable(rows) !== stored) {
    throw new Error(`run ${run.id}: rows ${how} ${JSON.stringify(rows)}, stored ${stored}`);
  }
}

/** Rows by key (a row read twice counts once), in key order. */
function inKeyOrder(read: readonly SettlementRow[]): SettlementRow[] {
  const byKey = new Map(read.map((r) => [r.key, r]));
  const order = (key: string) => Number.parseInt(key.slice(1), 10);
  return [...byKey.values()].sort((a, b) => order(a.key) - order(b.key));
}

const OPEN_STATES = (
  ['ready', 'runnable', 'claimed', 'needs_approval', 'awaiting_input'] as const
).map((state) => stateLiteral(state));

/**
 * True when a row of any origin or round of a run is open (granted, claimed,
 * parked, asking) or holds the run, leaving out the row planted from the
 * hook source `except`. One query that stops at the first such row, since a
 * run may hold many open rows. The kernel's `openObligation` asks this.
 */
export async function hasOpenRow(tx: Tx, runId: string, except: string): Promise<boolean> {
  const { db, dialect } = tx[SQL];
  const { rows } = await runPrepared(
    db,
    dialect,
    'tasks.open_obligation',
    (p) =>
      db
        .selectFrom('tasks')
        .select('key')
        .where('run_id', '=', p('run_id'))
        .where((eb) =>
          eb.or([
            eb('state', 'in', OPEN_STATES),
            // The SQL form of holds() (kernel/machines/task-machine.ts); a test checks that both agree.
            eb.and([
              eb('on_failure', '=', sql.lit('hold')),
              eb('state', 'in', [stateLiteral('failed'), stateLiteral('timed_out')]),
              eb.or([
                eb('error_code', 'is', null),
                eb('error_code', '!=', sql.lit('approval_denied')),
                eb('kind', '!=', sql.lit('tool')),
              ]),
            ]),
          ]),
        )
        .where((eb) => eb.or([eb('hook_source', 'is', null), eb('hook_source', '!=', p('except'))]))
        .limit(rowLimit(1)),
    { run_id: runId, except },
  );
  return rows.length > 0;
}
