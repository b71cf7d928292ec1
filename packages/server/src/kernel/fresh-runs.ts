import type { TaskTable } from '../store/schema.js';
import type { Tx } from '../store/store.js';

/** The columns the settle step reads of a row (see refreshAttention in run-state.ts). */
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

/**
 * Per unit of work: the runs it created, each with every row planted on it
 * since, as planted. Nobody else can see a run before its unit commits, so
 * these are all of its rows, until a write other than a plant changes one.
 */
const freshRuns = new WeakMap<Tx, Map<string, SettlementRow[]>>();

/** Records that the unit of work created this run (it has no rows yet). */
export function markFresh(tx: Tx, runId: string): void {
  let runs = freshRuns.get(tx);
  if (!runs) {
    runs = new Map();
    freshRuns.set(tx, runs);
  }
  runs.set(runId, []);
}

/** Records a row planted on a run (a no-op unless the run is fresh). */
export function notePlanted(tx: Tx, row: TaskTable): void {
  const rows = freshRuns.get(tx)?.get(row.run_id);
  if (!rows) return;
  const copy: Record<string, unknown> = {};
  for (const column of SETTLEMENT_COLUMNS) copy[column] = row[column];
  rows.push(copy as SettlementRow);
}

/**
 * Forgets what is known of a run's rows: called by every write that may
 * change a row's settlement columns after its plant (a move, a cancel), so
 * the next settle reads the store instead.
 */
export function forgetRows(tx: Tx, runId: string): void {
  freshRuns.get(tx)?.delete(runId);
}

/**
 * Every row of a run the unit of work created, as the store would return
 * them; undefined when the run is not fresh or a row changed since its plant.
 */
export function freshRows(tx: Tx, runId: string): readonly SettlementRow[] | undefined {
  return freshRuns.get(tx)?.get(runId);
}
